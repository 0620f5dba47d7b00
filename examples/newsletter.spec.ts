/**
 * A newsletter whose links go through a click tracker, and unsubscribing.
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('a subscriber follows a tracked story link and unsubscribes', async ({ page, inbox }) => {
  await page.goto('/newsletter');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Subscribe' }).click();

  const message = await inbox.waitForMessage({ subject: /^Acme Weekly/ });

  // Three stories, each with a "Read more" link wrapped in the app's click tracker.
  const stories = message.links({ text: 'Read more' });
  expect(stories).toHaveLength(3);
  const first = stories[0]!;
  const tracked = new URL(first.href);
  expect(tracked.pathname).toBe('/t/click');
  expect(new URL(tracked.searchParams.get('u')!).pathname).toBe('/articles/faster-builds');

  // Following the tracked link, as a reader would, counts the click and redirects to the story.
  await page.goto(first.href);
  await expect(page).toHaveURL(/\/articles\/faster-builds/);
  await expect(page.getByRole('heading')).toHaveText('Builds are now twice as fast');

  await page.goto(message.link('Unsubscribe').href);
  await page.getByRole('button', { name: 'Unsubscribe' }).click();
  await expect(page.getByRole('heading', { name: 'You have been unsubscribed' })).toBeVisible();
});
