/**
 * Visual snapshots of the app's emails, on Playwright's own snapshot machinery:
 * the email is rendered in a page of its own, the parts that change with every
 * send (the code, the date) are masked, and the snapshots live next to this
 * file. After an intended change to a template:
 *
 *   npx playwright test -c examples/playwright.config.ts visual --update-snapshots
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

// Each test renders the email in a browser page, in several modes or clients: seconds on a
// quiet machine, a minute or more on a loaded 2-core CI machine. Three minutes, to be safe.
test.describe.configure({ timeout: 180_000 });

test('the sign-in code email looks right on a phone and on a desktop', async ({ page, inbox }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  const message = await inbox.waitForMessage({ subject: 'Your sign-in code' });

  // #region snapshot
  // One snapshot per width: sign-in-code-mobile.png and sign-in-code-desktop.png.
  // The code and the date are masked on their own; the request reference is the app's, so it is masked here.
  await expect(message).toHaveScreenshot('sign-in-code.png', { widths: ['mobile', 'desktop'], mask: ['text=/REF-\\d{8}-\\d{4}/'] });
  // #endregion
});

test('the confirmation email as Gmail shows it in dark mode', async ({ page, inbox }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });

  // #region client
  // Gmail drops <link>, SVG, position…, and ignores prefers-color-scheme: its dark mode is
  // approximated by inverting the colours. The report lists what the profile removed.
  await expect(message).toHaveScreenshot('confirm-gmail-dark.png', { client: 'gmail.desktop-webmail', colorScheme: 'dark', width: 'mobile' });
  // #endregion
});
