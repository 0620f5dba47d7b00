import { test, expect } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { createHtmlReader, DEFERRED_HTML_MAX_CHARS, inlineImageUrls, prepareMessage, readerHtml, sanitizeMessageHtml } from '../../../src/server/mail/prepare.ts';
import { amplificationMail } from '../../support/amplification-mail.ts';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/eml/${name}`, import.meta.url));

test('a prepared message carries its sanitized HTML, cid: images turned into data: URLs of its own inline parts', async () => {
  const { message, sanitizedHtml, fallbackReason } = await prepareMessage(fixture('inline-image.eml'), { envelopeFrom: 'robot@app.example' });
  expect(fallbackReason).toBeNull();
  expect(message.subject).toBe('Inline logo');
  const logo = message.attachments.find((attachment) => attachment.contentId === 'logo@app.example');
  expect(logo).toBeDefined();
  const dataUrl = `data:image/png;base64,${Buffer.from(logo!.content).toString('base64')}`;
  expect(sanitizedHtml).toBe(`<p>Logo: <img src="${dataUrl}" alt="logo"></p><p>Missing: <img alt="missing"></p>`);
});

test('a prepared message without an HTML body has no sanitized HTML, and keeps its text', async () => {
  const { message, sanitizedHtml } = await prepareMessage(fixture('text-only.eml'), { envelopeFrom: '' });
  expect(sanitizedHtml).toBeNull();
  expect(message.rawHtml).toBeNull();
  expect(message.text).not.toBe('');
});

test('a prepared HTML-only message has its text derived from the HTML, and its readers get the HTML with its script removed', async () => {
  const { message, sanitizedHtml } = await prepareMessage(fixture('html-only.eml'), { envelopeFrom: '' });
  expect(message.text?.trim()).not.toBe('');
  // Small and without inline images: sanitized when read, not at intake.
  expect(sanitizedHtml).toBeNull();
  const html = readerHtml(message);
  expect(html).not.toBeNull();
  expect(html).not.toMatch(/<script|\son[a-z]+=/i);
});

test('HTML left to its readers reads exactly as HTML sanitized at intake; a larger body, or one with inline images, is sanitized at intake', async () => {
  for (const name of readdirSync(new URL('../../fixtures/eml/', import.meta.url)).filter((f) => f.endsWith('.eml'))) {
    const { message } = await prepareMessage(fixture(name), { envelopeFrom: '' });
    if (message.rawHtml === null) continue;
    expect(readerHtml(message), name).toBe(sanitizeMessageHtml(message));
    expect(message.sanitizedHtml === null, name).toBe(message.rawHtml.length <= DEFERRED_HTML_MAX_CHARS && inlineImageUrls(message).size === 0);
  }
  const big = `From: a@b.test\r\nTo: c@d.test\r\nSubject: big\r\nContent-Type: text/html\r\n\r\n${'<p onclick="x()">row</p>\r\n'.repeat(4000)}`;
  const { message } = await prepareMessage(Buffer.from(big), { envelopeFrom: '' });
  expect(message.rawHtml!.length).toBeGreaterThan(DEFERRED_HTML_MAX_CHARS);
  expect(message.sanitizedHtml).not.toBeNull();
  expect(message.sanitizedHtml).not.toContain('onclick');
  // A reader never sanitizes a body that large on its own thread.
  expect(readerHtml({ rawHtml: message.rawHtml, sanitizedHtml: null })).toBeNull();
});

test('an image referenced 10,000 times is written into the HTML once per reference only while the total stays within the raw source size', async () => {
  const { raw, image } = amplificationMail({ references: 10_000, imageBytes: 10 * 1024 });
  const started = Date.now();
  const { sanitizedHtml } = await prepareMessage(raw, { envelopeFrom: '' });
  const dataUrl = `data:image/png;base64,${image.toString('base64')}`;
  const copies = sanitizedHtml!.split(dataUrl).length - 1;
  // The source holds the image once, so it shows at least once; never a copy per reference.
  expect(copies).toBeGreaterThanOrEqual(1);
  expect(copies * dataUrl.length).toBeLessThanOrEqual(raw.byteLength);
  expect(sanitizedHtml!.length).toBeLessThan(2 * raw.byteLength);
  // The references past the bound keep their alt text, as an unknown Content-ID does.
  expect(sanitizedHtml!.split('<img alt="x">').length - 1).toBe(10_000 - copies);
  expect(Date.now() - started).toBeLessThan(10_000);
});

test('an image referenced once is resolved to its data: URL', async () => {
  const one = amplificationMail({ references: 1, imageBytes: 4096 });
  const { sanitizedHtml } = await prepareMessage(one.raw, { envelopeFrom: '' });
  expect(sanitizedHtml).toContain(`data:image/png;base64,${one.image.toString('base64')}`);
});

test('raw 8-bit UTF-8 in a header reads the same in headers as in subject; bytes that are not UTF-8 stay Latin-1', async () => {
  const raw = Buffer.concat([
    Buffer.from('From: a@b.test\r\nTo: c@d.test\r\nSubject: '),
    Buffer.from('Café ünïcode', 'utf8'),
    Buffer.from('\r\nX-Note: '),
    Buffer.from('naïve', 'utf8'),
    Buffer.from('\r\nX-Latin: '),
    Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    Buffer.from('\r\n\r\nbody\r\n'),
  ]);
  const { message } = await prepareMessage(raw, { envelopeFrom: '' });
  expect(message.subject).toBe('Café ünïcode');
  expect(message.headers['subject']).toBe(message.subject);
  expect(message.headers['x-note']).toBe('naïve');
  expect(message.headers['x-latin']).toBe('café');
});

test('a node\'s HTML reader sanitizes a message once while it is among the recently read, within its bound of characters', () => {
  const reader = createHtmlReader({ maxChars: 100 });
  let sanitized = 0;
  const record = (id: string, body: string) => ({
    id,
    sanitizedHtml: null,
    get rawHtml() {
      sanitized++;
      return `<p onclick="x()">${body}</p>`;
    },
  });
  const a = record('msg_a', 'a'.repeat(40));
  expect(reader(a)).toBe(`<p>${'a'.repeat(40)}</p>`);
  const afterFirst = sanitized;
  expect(reader(a)).toBe(`<p>${'a'.repeat(40)}</p>`);
  expect(sanitized, 'the second read is the kept HTML').toBe(afterFirst + 1);
  // Two more messages overflow 100 characters: the one read longest ago goes.
  reader(record('msg_b', 'b'.repeat(40)));
  reader(record('msg_c', 'c'.repeat(40)));
  const before = sanitized;
  reader(a);
  expect(sanitized - before, 'a was dropped and is sanitized again').toBeGreaterThan(1);
  // HTML stored sanitized, and no HTML, are returned as they are.
  expect(reader({ id: 'msg_d', rawHtml: '<b>x</b>', sanitizedHtml: '<b>kept</b>' })).toBe('<b>kept</b>');
  expect(reader({ id: 'msg_e', rawHtml: null, sanitizedHtml: null })).toBeNull();
});
