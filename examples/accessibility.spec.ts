/**
 * Accessibility of the app's emails: axe-core runs on the rendered email in
 * light and dark mode (missing lang, alt text, link names, colour contrast,
 * heading order, layout tables without role="presentation" …).
 * Needs axe-core: `npm install --save-dev axe-core`.
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

// Each test renders the email in a browser page, in several modes or clients: seconds on a
// quiet machine, a minute or more on a loaded 2-core CI machine. Three minutes, to be safe.
test.describe.configure({ timeout: 180_000 });

test('the sign-in code email is accessible in light and dark mode', async ({ page, inbox }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  const message = await inbox.waitForMessage({ subject: 'Your sign-in code' });

  // #region accessible
  await expect(message).toBeAccessible();
  // #endregion
});

test('the confirmation email has no serious accessibility problem, even as Gmail renders it', async ({ page, inbox }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });

  // #region options
  await expect(message).toBeAccessible({ impact: 'serious', client: 'gmail.desktop-webmail' });
  // #endregion
});
