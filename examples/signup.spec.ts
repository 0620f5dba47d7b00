/**
 * Sign-up with a confirmation link: type the fixture's address, wait for the
 * email, click the link inside it, land signed in.
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('a new user confirms their email by clicking the link in the email', async ({ page, inbox }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('status')).toContainText(`We sent a confirmation link to ${inbox.address}`);

  // Waits for the email (a step in the report; the email is attached to it).
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
  expect(message).toHaveLink('Confirm email');

  // Shows the email in the page, with no network access, and clicks its button.
  const email = await inbox.open(page, message);
  await email.getByRole('link', { name: 'Confirm email' }).click();

  await expect(page.getByRole('status')).toHaveText('Email confirmed');
  await expect(page.locator('#account')).toHaveText(`Signed in as ${inbox.address}`);
});

test('the confirmation link works when followed directly, and only once', async ({ page, inbox }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();

  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
  const confirm = message.link('Confirm email').href;

  await page.goto(confirm);
  await expect(page.getByRole('status')).toHaveText('Email confirmed');

  await page.goto(confirm);
  await expect(page.getByRole('alert')).toContainText('This confirmation link is not valid');
});
