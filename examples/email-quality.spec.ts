/**
 * Testing the email itself: its links work, it renders in the clients your
 * users have, and the app copes when the mail server says "try again later".
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('the newsletter links all work but one: the archive page the app does not have', async ({ page, inbox }) => {
  await page.goto('/newsletter');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Subscribe' }).click();
  const message = await inbox.waitForMessage({ subject: /^Acme Weekly/ });

  // #region links
  // Every link to the app is requested through the test's own `request` context;
  // the tracked story links are followed through the click tracker's redirect.
  const { ok, broken } = await message.checkLinks();
  expect(broken.map((link) => [link.text, link.status])).toEqual([['Past issues', 404]]);
  expect(ok.map((link) => link.text)).toContain('Unsubscribe');

  // As an assertion, the failure would list the broken link and attach the check to the report:
  await expect(message).not.toHaveWorkingLinks();
  // #endregion
});

test('the invoice email has no broken link', async ({ page, inbox }) => {
  await page.goto('/billing');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Send invoice' }).click();
  const message = await inbox.waitForMessage({ subject: /invoice/i });

  await expect(message).toHaveWorkingLinks();
});

test('the sign-in code email uses only features Gmail and Apple Mail support', async ({ page, inbox }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  const message = await inbox.waitForMessage({ subject: 'Your sign-in code' });

  // #region compatibility
  await expect(message).toBeCompatibleWith(['gmail.desktop-webmail', 'gmail.android', 'apple-mail']);

  // The same data as a report (features per client, and Mailpit's score), attached to the test.
  const report = await message.compatibility(['gmail.desktop-webmail', 'outlook.windows']);
  const lines = report.clients.map((client) => `${client.name}: ${client.score.supported}% supported; lacks ${client.unsupported.map((f) => f.feature).join(', ') || 'nothing'}`);
  await test.info().attach('compatibility', { body: lines.join('\n'), contentType: 'text/plain' });
  // #endregion
});

test('the app retries when the mail server defers its mail, and the code arrives', async ({ page, inbox }) => {
  // #region faults
  // The next two deliveries to this inbox get "451 4.3.0"; other tests' inboxes are untouched.
  await inbox.failDeliveries({ code: 451, count: 2 });
  // #endregion

  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await expect(page).toHaveURL(/\/login\/verify/);

  const message = await inbox.waitForMessage({ subject: 'Your sign-in code' });
  expect(await inbox.handle.deliveryFault()).toBeNull(); // both deferrals were used up by the app's retries
  await page.getByLabel('Code').fill(message.otp());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('status')).toHaveText('You are signed in');
});

test('the app tells the user when the mail server refuses the address for good', async ({ page, inbox }) => {
  await inbox.failDeliveries({ code: 550 });

  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a code' }).click();

  await expect(page.getByRole('heading', { name: 'Email not sent' })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('550 5.7.1');
  await inbox.expectNoMessage(undefined, { within: 500 });
});
