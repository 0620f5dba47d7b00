/**
 * Phone verification by SMS: sign up, confirm the email, enter the test's
 * phone number, read the code Twilio Verify texted to it, and land signed in
 * with a verified phone. The app sends through the real `twilio` SDK, pointed
 * at the inbox service by INBOXKIT_TWILIO_BASE_URL (inboxkitServer().env).
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('a new user confirms their email, then their phone with the code texted to it', async ({ page, inbox, phone }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
  const confirmation = await inbox.waitForMessage({ subject: 'Confirm your email' });
  await page.goto(confirmation.link('Confirm email').href);
  await expect(page.getByRole('status')).toHaveText('Email confirmed');

  // #region phone
  await page.goto('/account/phone');
  await page.getByLabel('Phone number').fill(phone.number);
  await page.getByRole('button', { name: 'Text me a code' }).click();
  await expect(page.getByRole('status')).toHaveText(`We texted a code to ${phone.number}.`);

  // Waits for the SMS (a step in the report, attached to it) and reads its code.
  const sms = await phone.waitForMessage({ text: /verification code/ });
  await page.getByLabel('Code').fill(sms.otp());
  await page.getByRole('button', { name: 'Verify' }).click();

  await expect(page.getByRole('status')).toHaveText('Phone verified');
  await expect(page.locator('#account')).toHaveText(`Signed in as ${inbox.address} · ${phone.number}`);
  // #endregion
});

test('a wrong code is refused and the right one still works', async ({ page, inbox, phone }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.goto((await inbox.waitForMessage({ subject: 'Confirm your email' })).link('Confirm email').href);

  await page.goto('/account/phone');
  await page.getByLabel('Phone number').fill(phone.number);
  await page.getByRole('button', { name: 'Text me a code' }).click();
  const code = (await phone.waitForMessage()).otp();

  await page.getByLabel('Code').fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toContainText('That code is not right');

  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('status')).toHaveText('Phone verified');
});
