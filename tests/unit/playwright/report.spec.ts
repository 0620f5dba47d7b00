import { existsSync, readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import { attachMessage, MessageIndex, messageTitle, renderEmailDocument } from '../../../src/playwright/report.ts';

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
  await attachMessage(testInfo, 'email 1', { ...message, text }, new TextEncoder().encode(`Subject: x\r\n\r\n${text}`), { index: new MessageIndex(), kind: 'email' });
  expect(attached.find((a) => a.name === 'email 1.txt')?.body).toBe('Your code is inside\n\nYour code is 482913.');
  expect(attached.find((a) => a.name === 'email 1.eml')?.body).toContain('\u00a0\u200c'.repeat(80));
});

test('the message files are not text/* (a terminal reporter prints the body of each such attachment); the index lists them', async () => {
  const attached: Array<{ name: string; contentType: string }> = [];
  const testInfo = { attach: async (name: string, options: { contentType: string }) => void attached.push({ name, contentType: options.contentType }) } as unknown as TestInfo;
  const index = new MessageIndex();
  await attachMessage(testInfo, 'email 1 — Hello', message, new Uint8Array([65]), { index, kind: 'email' });
  expect(attached.filter((a) => a.contentType.startsWith('text/'))).toEqual([]);
  expect(attached.map((a) => a.name)).toEqual(['email 1 — Hello.html', 'email 1 — Hello.txt', 'email 1 — Hello.headers.json', 'email 1 — Hello.eml']);
  expect(index.size).toBe(1);
});

test('the index is named on one line after its messages: their kind, their count and their labels, cut at 160 characters', () => {
  const index = new MessageIndex();
  index.add('email 1 — Welcome', message, 'email');
  index.add('received #2 — Reset', message, 'email');
  expect(index.name()).toBe('inboxkit: 2 emails — email 1 — Welcome · received #2 — Reset');
  const sms = new MessageIndex();
  sms.add('SMS 1 — "Your code is 1234"', { ...message, subject: '', html: null }, 'SMS');
  expect(sms.name()).toBe('inboxkit: 1 SMS — SMS 1 — "Your code is 1234"');
  sms.add('email 2 — Hi', message, 'email');
  expect(sms.name()).toMatch(/^inboxkit: 2 messages — /);
  const many = new MessageIndex();
  for (let i = 1; i <= 20; i++) many.add(`received #${i} — ${'x'.repeat(40)}`, message, 'email');
  expect(many.name()).toHaveLength(160);
  expect(many.name()).not.toContain('\n');
});

test('the index page shows each message escaped, with the email itself in a sandboxed frame, and loads nothing', () => {
  const index = new MessageIndex();
  index.add('email 1 — Hello <world>', { ...message, html: '<p>Body <b>bold</b><img src="https://tracker.example/p.gif"></p>' }, 'email');
  const page = index.render('signs up <fast>');
  expect(page).toContain(`content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:"`);
  expect(page).toContain('signs up &lt;fast&gt;');
  expect(page).toContain('<h2>email 1 — Hello &lt;world&gt;</h2>');
  expect(page).toMatch(/<iframe sandbox title="[^"]*" srcdoc="[^"]*&lt;p&gt;Body &lt;b&gt;bold&lt;\/b&gt;/);
  expect(page).not.toContain('<p>Body');
  expect(page).toContain('Acme &amp; Co &lt;a@acme.example&gt;');
});

test('the index of a failed test is a file attached by path (the terminal shows its path); a passing test gets it as a body and no file', async () => {
  const info = test.info();
  const attached: Array<{ name: string; path?: string; body?: string | Buffer }> = [];
  const testInfo = {
    titlePath: ['file.spec.ts', 'signs up'],
    outputPath: (name: string) => info.outputPath(name),
    attach: async (name: string, options: { path?: string; body?: string | Buffer }) => void attached.push({ name, ...options }),
  } as unknown as TestInfo;
  const index = new MessageIndex();
  index.add('email 1 — Welcome', message, 'email');
  await index.attachTo(testInfo, false);
  expect(attached[0]?.path).toBeUndefined();
  expect(String(attached[0]?.body)).toContain('<h2>email 1 — Welcome</h2>');
  expect(existsSync(info.outputPath('inboxkit-messages.html'))).toBe(false);
  await index.attachTo(testInfo, true);
  expect(attached[1]?.path).toBe(info.outputPath('inboxkit-messages.html'));
  expect(readFileSync(attached[1]!.path!, 'utf8')).toContain('of “signs up”');
  await new MessageIndex().attachTo(testInfo, true);
  expect(attached).toHaveLength(2);
});
