/**
 * Several inboxes in one test: two people sign up side by side, each in their
 * own browser context, and each confirmation goes to its own inbox.
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('two people sign up at once and each confirms from their own inbox', async ({ browser, createInbox }) => {
  const people = await Promise.all(
    ['ada', 'grace'].map(async (name) => ({ name, inbox: await createInbox({ label: name }), page: await (await browser.newContext()).newPage() })),
  );

  for (const { page, inbox } of people) {
    await page.goto('/signup');
    await page.getByLabel('Email').fill(inbox.address);
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Create account' }).click();
  }

  for (const { page, inbox } of people) {
    const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
    expect(message.to.map((to) => to.address)).toEqual([inbox.address]);
    await page.goto(message.link('Confirm email').href);
    await expect(page.locator('#account')).toHaveText(`Signed in as ${inbox.address}`);
  }

  // Nobody got the other's email: one message in each inbox.
  for (const { inbox } of people) expect(await inbox.messages()).toHaveLength(1);
  for (const { page } of people) await page.context().close();
});
