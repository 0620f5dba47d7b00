/**
 * The beta waitlist: the app sends its verification mail through Resend's
 * HTTP API with the real `resend` SDK, not SMTP. The SDK is pointed at the
 * inbox service by INBOXKIT_RESEND_BASE_URL (inboxkitServer().env), so the
 * test waits for the mail and reads it as any other: `otp()`, `link()`.
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('a visitor joins the waitlist with the code of the mail the app sent through Resend', async ({ page, inbox }) => {
  await page.goto('/waitlist');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Join the waitlist' }).click();
  await expect(page.getByRole('status')).toHaveText(`We emailed a code to ${inbox.address}.`);

  // #region waitlist
  // The mail came through Resend's API; the inbox holds it like any other.
  const mail = await inbox.waitForMessage({ subject: 'Confirm your spot on the waitlist' });
  expect(mail.headers['x-inboxkit-via']).toBe('resend');
  await page.getByLabel('Code').fill(mail.otp());
  await page.getByRole('button', { name: 'Confirm my spot' }).click();
  // #endregion

  await expect(page.getByRole('status')).toHaveText('You are on the waitlist');
});

test('the link in the mail confirms the spot too, and only once', async ({ page, inbox }) => {
  await page.goto('/waitlist');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Join the waitlist' }).click();

  const confirm = (await inbox.waitForMessage({ subject: 'Confirm your spot on the waitlist' })).link('Confirm my spot').href;
  await page.goto(confirm);
  await expect(page.getByRole('status')).toHaveText('You are on the waitlist');

  await page.goto(confirm);
  await expect(page.getByRole('alert')).toContainText('This confirmation link is not valid');
});
