/**
 * Two-factor sign-in in one test: sign up, confirm the email, scan the QR code
 * into the `authenticator` fixture, sign out, then sign in with the emailed
 * code and the authenticator's code.
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('a user turns on two-factor sign-in, then signs in with the emailed code and the authenticator code', async ({ page, inbox, authenticator }) => {
  // The app accepts each 30 s code once: the two codes may wait up to minRemaining (5 s) plus one period in all.
  test.setTimeout(120_000);

  // Sign up and confirm the address.
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
  const confirmation = await inbox.waitForMessage({ subject: 'Confirm your email' });
  await page.goto(confirmation.link('Confirm email').href);
  await expect(page.getByRole('status')).toHaveText('Email confirmed');

  // #region two-factor
  // Enrol: the QR code is read off the page, as a phone would.
  await page.goto('/account/two-factor');
  const device = await authenticator.enroll(page.getByRole('img', { name: 'QR code for your authenticator app' }));
  expect(device.issuer).toBe('Acme');
  expect(device.account).toBe(inbox.address);
  await page.getByLabel('Authenticator code').fill(await device.code());
  await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
  await expect(page.getByRole('status')).toHaveText('Two-factor sign-in is on');

  await page.getByRole('button', { name: 'Sign out' }).click();

  // Sign in: first the code from the email, then the authenticator's code.
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  const message = await inbox.waitForMessage({ subject: 'Your sign-in code' });
  await page.getByLabel('Code').fill(message.otp());
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page.getByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible();
  await page.getByLabel('Authenticator code').fill(await device.code());
  await page.getByRole('button', { name: 'Verify' }).click();
  // #endregion

  await expect(page.getByRole('status')).toHaveText('You are signed in');
  await expect(page.locator('#account')).toHaveText(`Signed in as ${inbox.address}`);
});

test('a user who cannot scan types the key the page shows instead', async ({ page, inbox, authenticator }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByLabel('Code').fill((await inbox.waitForMessage({ subject: 'Your sign-in code' })).otp());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('status')).toHaveText('You are signed in');

  await page.goto('/account/two-factor');
  const device = await authenticator.enroll(page.locator('#setup-key'));
  await page.getByLabel('Authenticator code').fill(await device.code());
  await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
  await expect(page.getByRole('status')).toHaveText('Two-factor sign-in is on');
});
