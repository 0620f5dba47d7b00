import { test, expect } from '../../src/playwright/index.ts';

test('a new user confirms their email address', async ({ page, inbox }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Sign up' }).click();

  const message = await inbox.waitForMessage({ subject: 'Confirm your email', from: 'no-reply@app.example' });
  await page.goto(message.link('Confirm').href);
  await expect(page.getByRole('heading')).toHaveText('Email confirmed');
});
