import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { decodeHeaderWords } from '../../../src/server/mail/headers.ts';
import { fallbackParse, generatedFilename, headersFromLines, parseMessage } from '../../../src/server/mail/parse.ts';
import { contentDisposition } from '../../../src/server/http/present.ts';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/eml/${name}`, import.meta.url));

test('encoded words are decoded in any charset; adjacent words join; unknown charsets stay as they were', () => {
  expect(decodeHeaderWords('=?utf-8?Q?caf=C3=A9?= ok')).toBe('café ok');
  expect(decodeHeaderWords('=?ISO-8859-1?B?R3L832U=?=')).toBe('Grüße');
  expect(decodeHeaderWords('=?utf-8?Q?a?= =?utf-8?Q?b?=')).toBe('ab');
  expect(decodeHeaderWords('=?x-nope?Q?abc?=')).toBe('=?x-nope?Q?abc?=');
  expect(decodeHeaderWords('plain text')).toBe('plain text');
});

test('headers are lower-cased, unfolded, and repeated ones joined by a line feed', () => {
  expect(headersFromLines(['X-A: one', 'Subject: folded\r\n  line', 'x-a: two', 'Bad Header: x', ': nameless'])).toEqual({
    'x-a': 'one\ntwo',
    subject: 'folded  line',
  });
});

test('a header value can never carry CR, LF or NUL, even through an encoded word', async () => {
  const { message } = await parseMessage(fixture('control-characters.eml'), { envelopeFrom: '' });
  expect(message.subject).toBe('line1 event: injected data: xend');
  expect(message.headers['subject']).toBe(message.subject);
});

test('the fallback reading keeps the raw source, headers, subject, sender and body text', () => {
  const raw = Buffer.from('Subject: =?utf-8?Q?H=C3=A9llo?=\r\nFrom: "Ann" <ann@example.com>\r\nX-Folded: a\r\n b\r\n\r\nbody text\r\n');
  const message = fallbackParse(raw, 'env@example.com');
  expect(message.raw).toBe(raw);
  expect(message.subject).toBe('Héllo');
  expect(message.from).toEqual({ address: 'ann@example.com', name: 'Ann' });
  expect(message.headers['x-folded']).toBe('a b');
  expect(message.text).toBe('body text\r\n');
  expect(message.envelopeFrom).toBe('env@example.com');
});

test('parsing never rejects: a message that takes longer than the budget is stored with the fallback reading', async () => {
  const big = Buffer.concat([Buffer.from('Subject: slow\r\nContent-Type: text/html\r\n\r\n'), Buffer.alloc(512 * 1024, '<p>x</p>')]);
  const result = await parseMessage(big, { envelopeFrom: '', timeoutMs: 1 });
  expect(result.fallbackReason).toContain('longer than 1 ms');
  expect(result.message.subject).toBe('slow');
  expect(result.message.raw).toBe(big);
});

test('attachments without a filename get one from their position and type', async () => {
  const { message } = await parseMessage(fixture('attachments.eml'), { envelopeFrom: '' });
  expect(message.attachments.map((a) => a.filename)).toEqual(['invoice.pdf', 'attachment-2.bin', 'Résumé €.csv']);
  expect(generatedFilename(0, 'image/png')).toBe('attachment-1.png');
  expect(generatedFilename(4, 'application/x-unknown')).toBe('attachment-5.bin');
});

test('Content-Disposition carries an ASCII fallback and the exact UTF-8 name (RFC 6266)', () => {
  expect(contentDisposition('report.pdf')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
  expect(contentDisposition('naïve "quote" (1).txt')).toBe(
    `attachment; filename="na_ve _quote_ (1).txt"; filename*=UTF-8''na%C3%AFve%20%22quote%22%20%281%29.txt`,
  );
});
