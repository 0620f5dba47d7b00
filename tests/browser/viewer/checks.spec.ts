/**
 * The viewer's Checks tab (issue 30), in a real browser against a real
 * service: run on demand, it shows the content findings of the original HTML,
 * the spam rules of the real scanner (when .ci/run started spamd:
 * INBOXKIT_TEST_SPAMD_URL) or why there are none, the links and the envelope;
 * and sender authentication, checked by the service against a pasted test DNS.
 */
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
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

test('the Checks tab checks sender authentication against a pasted test DNS: DKIM passes with the key, and a missing key is named', async ({ page, viewer }) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signer = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: { domainName: 'acme.example', keySelector: 'mail', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() } });
  const inbox = await viewer.createInbox();
  const signed = await signer.sendMail({ from: 'Acme <hello@acme.example>', to: inbox.address, subject: 'Signed receipt', text: 'Your order has shipped.' });
  await viewer.send({ envelope: { from: 'bounce@acme.example', to: inbox.address }, raw: signed.message as Buffer });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Signed receipt/ }).click();
  await page.getByRole('tab', { name: 'Checks' }).click();
  const dns = page.getByLabel(/Test DNS/);
  await dns.fill(JSON.stringify({ 'acme.example': 'v=spf1 ip4:127.0.0.1 -all', '_dmarc.acme.example': 'v=DMARC1; p=reject' }));
  await page.getByRole('button', { name: 'Check authentication' }).click();
  const dkim = page.getByRole('table', { name: /^DKIM/ });
  await expect(dkim.getByRole('row', { name: /acme\.example mail/ })).toContainText("no key at mail._domainkey.acme.example in the test DNS: add { 'mail._domainkey.acme.example'");
  await dns.fill(JSON.stringify({ 'mail._domainkey.acme.example': `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`, 'acme.example': 'v=spf1 ip4:127.0.0.1 -all', '_dmarc.acme.example': 'v=DMARC1; p=reject' }));
  await page.getByRole('button', { name: 'Check authentication' }).click();
  await expect(dkim.getByRole('row', { name: /acme\.example mail pass/ })).toBeVisible();
  const others = page.getByRole('table', { name: /^SPF, DMARC, ARC/ });
  await expect(others.getByRole('row', { name: /^SPF pass acme\.example/ })).toBeVisible();
  await expect(others.getByRole('row', { name: /^DMARC pass \(p=reject\)/ })).toBeVisible();
  await expect(others.getByRole('row', { name: /^ARC none/ })).toBeVisible();
  await dns.fill('{ not json');
  await page.getByRole('button', { name: 'Check authentication' }).click();
  await expect(page.getByText(/The test DNS is not JSON/)).toBeVisible();
  // What the service says back (here a refused record, quoted in the error) is shown as text, never as markup.
  await dns.fill(JSON.stringify({ 'mail._domainkey.acme.example': 'v=DKIM1; <img src=x onerror=alert(1)>' }));
  await page.getByRole('button', { name: 'Check authentication' }).click();
  await expect(page.getByText(/is a DKIM key record without a p= tag \("v=DKIM1; <img src=x onerror=alert\(1\)>"\)/)).toBeVisible();
  await expect(page.locator('.auth-results img')).toHaveCount(0);
});

test.describe('at 1400 px wide', () => {
  test.use({ viewport: { width: 1400, height: 900 } });

  test('the Checks tab keeps every rule id on one line, and its table within the pane, beside long findings', async ({ page, viewer }, testInfo) => {
    const inbox = await viewer.createInbox();
    await viewer.send({
      to: inbox.address,
      subject: 'Rule ids',
      html: '<p>Hi</p><script>x()</script><form action="https://acme.example/f"></form><link rel="stylesheet" href="https://cdn.acme.example/a.css"><img src="https://cdn.acme.example/a.png"><a href="http://acme.example/read">Read</a>',
      headers: { 'List-Unsubscribe': 'https://acme.example/u' },
    });
    await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
    await page.getByRole('link', { name: /Rule ids/ }).click();
    await page.getByRole('tab', { name: 'Checks' }).click();
    await page.getByRole('button', { name: 'Run checks' }).click();
    const ids = page.getByRole('table', { name: /Content rules/ }).locator('tbody tr td:first-child code');
    await expect(ids.filter({ hasText: 'external-stylesheet' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('checks-1400.png'), fullPage: true });
    // A rule id broken over lines is one inline box per line: each must be one box, as wide as its text.
    const boxes = await ids.evaluateAll((codes) => codes.map((code) => ({ id: code.textContent, lines: code.getClientRects().length, fits: code.scrollWidth <= code.getBoundingClientRect().width + 1 })));
    expect(boxes.length, 'the content rules found (script, form, external-stylesheet, img-alt, …)').toBeGreaterThanOrEqual(5);
    expect(boxes.filter((b) => b.lines !== 1 || !b.fits), 'rule ids broken over more than one line').toEqual([]);
    // ... and the other columns make room for them: the table fits the message pane, every column in view.
    const pane = await page.locator('#message-pane').evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
    expect(pane.scrollWidth, 'the message pane scrolls sideways: a column of the table is out of view').toBeLessThanOrEqual(pane.clientWidth);
  });
});
