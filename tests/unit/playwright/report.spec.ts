import { expect, test } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import { attachMessage, messageTitle, renderEmailDocument } from '../../../src/playwright/report.ts';

const message = {
  subject: 'Hello <world> & "friends"',
  from: { address: 'a@acme.example', name: 'Acme & Co' },
  to: [{ address: 'b@inboxkit.test', name: '' }],
  cc: [],
  receivedAt: '2026-01-01T00:00:00.000Z',
  html: '<p>Body <b>bold</b></p>',
  text: 'Body bold',
  headers: { subject: 'Hello' },
};

test('the rendered email escapes header values and keeps the sanitized body as it is', () => {
  const page = renderEmailDocument(message);
  expect(page).toContain('Hello &lt;world&gt; &amp; &quot;friends&quot;');
  expect(page).toContain('Acme &amp; Co &lt;a@acme.example&gt;');
  expect(page).toContain('<p>Body <b>bold</b></p>');
  expect(page).not.toContain('<world>');
});

test('the rendered email forbids every network request but inline styles and data: images', () => {
  expect(renderEmailDocument(message)).toContain(`content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:"`);
});

test('a message without HTML is shown as escaped text, and the header block can be left out', () => {
  const page = renderEmailDocument({ ...message, html: null, text: 'a < b' }, { header: false });
  expect(page).toContain('a &lt; b</pre>');
  expect(page).not.toContain('<th');
});

test('attachment titles are one line of at most 60 characters', () => {
  expect(messageTitle({ subject: 'Line\n  two' })).toBe('Line two');
  expect(messageTitle({ subject: '' })).toBe('(no subject)');
  expect(messageTitle({ subject: 'x'.repeat(100) })).toHaveLength(60);
});

test('an SMS, which has no subject, is titled by the start of its text in quotes', () => {
  expect(messageTitle({ subject: '', text: 'Your Acme code is 123456' })).toBe('"Your Acme code is 123456"');
  expect(messageTitle({ subject: '', text: 'x'.repeat(100) }).length).toBeLessThanOrEqual(60);
});

test('the .txt attachment shows the text as a reader sees it, without the invisible preheader filler; the .eml keeps every byte', async () => {
  const attached: Array<{ name: string; body: string }> = [];
  const testInfo = { attach: async (name: string, options: { body: string | Buffer }) => void attached.push({ name, body: String(options.body) }) } as unknown as TestInfo;
  const text = `Your code is inside${'\u00a0\u200c'.repeat(80)}\n\nYour code is 482913.`;
  await attachMessage(testInfo, 'email 1', { ...message, text }, new TextEncoder().encode(`Subject: x\r\n\r\n${text}`));
  expect(attached.find((a) => a.name === 'email 1.txt')?.body).toBe('Your code is inside\n\nYour code is 482913.');
  expect(attached.find((a) => a.name === 'email 1.eml')?.body).toContain('\u00a0\u200c'.repeat(80));
});
