/**
 * Password reset with an expiring link, then signing in with the new password.
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('a user resets a forgotten password and signs in with the new one', async ({ page, inbox }) => {
  // An account must exist first (its address does not need to be confirmed).
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('the old password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await inbox.waitForMessage({ subject: 'Confirm your email' });

  await page.goto('/forgot');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Send reset link' }).click();

  const message = await inbox.waitForMessage({ subject: 'Reset your password' });
  await page.goto(message.link('Reset password').href);

  await page.getByLabel('New password').fill('a brand new password');
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByRole('heading', { name: 'Password updated' })).toBeVisible();

  await page.goto('/signin');
  // The navigation has a "Sign in" link too: ask for the form's button by role.
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('a brand new password');
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page.getByRole('status')).toHaveText('You are signed in');
  await expect(page.locator('#account')).toHaveText(`Signed in as ${inbox.address}`);
});
