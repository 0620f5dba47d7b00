/**
 * The page of a test's messages (its one `text/html` attachment), as the HTML
 * report opens it in Chromium: every email is shown, itself, in its frame, and
 * nothing loads from the network.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { writeFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { MessageIndex } from '../../../src/playwright/report.ts';

const message = {
  from: { address: 'no-reply@acme.example', name: 'Acme' },
  to: [{ address: 'user@inboxkit.test', name: '' }],
  cc: [],
  receivedAt: '2026-12-07T08:00:00.000Z',
  headers: { subject: 'x' },
};

test('the page of a test\'s messages shows each email itself in its frame, its text, and sends no request', async ({ page }, testInfo) => {
  // A tracking pixel on a real server, which counts what reaches it.
  const hits: string[] = [];
  const tracker = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end();
  });
  await new Promise<void>((resolve) => tracker.listen(0, '127.0.0.1', resolve));
  const pixel = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}/p.gif`;
  const index = new MessageIndex();
  index.add('email 1 — Welcome', { ...message, subject: 'Welcome', html: `<h1>Welcome, Ada</h1><img src="${pixel}" alt="">`, text: 'Welcome, Ada' }, 'email');
  index.add('received #2 — Your code', { ...message, subject: 'Your code', html: null, text: 'Your code is 482913' }, 'email');
  const file = testInfo.outputPath('index.html');
  await writeFile(file, index.render('signs up'));
  // Blocked by the page's policy before any connection (Playwright reports such a request as failed with "csp").
  const sent: string[] = [];
  page.on('requestfinished', (request) => void (request.url().startsWith('file:') ? null : sent.push(request.url())));
  await page.goto(pathToFileURL(file).href);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('inboxkit: 2 emails of “signs up”');
  await expect(page.getByRole('link', { name: 'received #2 — Your code' })).toBeVisible();
  await expect(page.frameLocator('iframe[title="email 1 — Welcome"]').getByRole('heading', { name: 'Welcome, Ada' })).toBeVisible();
  await expect(page.frameLocator('iframe[title="received #2 — Your code"]').locator('pre')).toHaveText('Your code is 482913');
  await expect(page.locator('#m2 pre')).toHaveText('Your code is 482913');
  await page.waitForTimeout(300);
  expect(sent).toEqual([]);
  expect(hits).toEqual([]);
  await new Promise((resolve) => tracker.close(resolve));
});
