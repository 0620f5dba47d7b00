/**
 * The viewer's Checks tab (issue 30), in a real browser against a real
 * service: run on demand, it shows the content findings of the original HTML,
 * the spam rules of the real scanner (when .ci/run started spamd:
 * INBOXKIT_TEST_SPAMD_URL) or why there are none, the links and the envelope.
 */
import { test } from './harness.ts';
import { expect } from '@playwright/test';

test('the Checks tab runs on demand and shows content findings, spam rules, links and the envelope', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  await viewer.send({
    to: inbox.address,
    subject: 'Weekly digest',
    html: '<p>Digest</p><script>track()</script><img src="https://cdn.acme.example/a.png"><a href="http://acme.example/read">Read</a>',
  });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Weekly digest/ }).click();
  await page.getByRole('tab', { name: 'Checks' }).click();
  await expect(page.getByRole('table', { name: /Content rules/ })).toHaveCount(0);
  await page.getByRole('button', { name: 'Run checks' }).click();
  const content = page.getByRole('table', { name: /Content rules/ });
  // The script is gone from the sanitized HTML, but the check reads the original part.
  await expect(content.getByRole('row', { name: /^script/ })).toContainText('Every email client removes <script>');
  await expect(content.getByRole('row', { name: /^img-alt/ })).toContainText('has no alt attribute');
  await expect(content.getByRole('row', { name: /^text-part/ })).toBeVisible();
  await expect(page.getByRole('table', { name: /^Links/ }).getByRole('row', { name: /Read/ })).toContainText('plain http');
  await expect(page.getByText(/Envelope: MAIL FROM <no-reply@acme\.example>, RCPT TO /)).toBeVisible();
  if (process.env.INBOXKIT_TEST_SPAMD_URL) {
    const spam = page.getByRole('table', { name: /Spam rules/ });
    await expect(spam.getByRole('row', { name: /NO_RELAYS/ })).toContainText('no (local-only)');
    await expect(page.getByText(/^spamassassin: score/)).toBeVisible();
  } else {
    await expect(page.getByText(/has no spam scanner: start it with --spam-check/)).toBeVisible();
  }
});
