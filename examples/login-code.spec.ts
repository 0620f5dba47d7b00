/**
 * Passwordless sign-in with a 6-digit code: the code is read from the email,
 * among distractors (a colour, a date, a reference number, a phone number).
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('a user signs in with the code from the email', async ({ page, inbox }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await expect(page).toHaveURL(/\/login\/verify/);

  const message = await inbox.waitForMessage({ subject: 'Your sign-in code' });
  expect(message).toHaveOtp();
  const code = message.otp();
  expect(code).toMatch(/^\d{6}$/);

  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page.getByRole('status')).toHaveText('You are signed in');
  await expect(page.locator('#account')).toHaveText(`Signed in as ${inbox.address}`);
});

test('a wrong code is refused and the right one still works', async ({ page, inbox }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a code' }).click();

  const code = (await inbox.waitForMessage({ subject: 'Your sign-in code' })).otp();
  const wrong = code === '000000' ? '111111' : '000000';

  await page.getByLabel('Code').fill(wrong);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('That code is not right');

  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('status')).toHaveText('You are signed in');
});
