/**
 * The content rules (issue 30), one behaviour per rule, on message parts as
 * postal-mime reads them from a raw source.
 */
import { test, expect } from '@playwright/test';
import { CONTENT_RULES, GMAIL_CLIP_BYTES, checkContent } from '../../../src/client/index.ts';
import { contentSourceOf } from '../../../src/checks/original.ts';
import type { ContentSource } from '../../../src/client/index.ts';

const GOOD_HEADERS = [
  { key: 'from', value: 'Acme <hello@acme.example>' },
  { key: 'date', value: 'Wed, 25 Nov 2026 19:00:00 +0000' },
  { key: 'message-id', value: '<abc.123@acme.example>' },
];

function source(parts: Partial<ContentSource> & { extraHeaders?: ContentSource['headers'] } = {}): ContentSource {
  return { headers: [...(parts.headers ?? GOOD_HEADERS), ...(parts.extraHeaders ?? [])], html: parts.html ?? null, text: parts.text === undefined ? 'hello' : parts.text };
}

const rules = (s: ContentSource, bulk?: boolean) => checkContent(s, bulk === undefined ? {} : { bulk }).map((f) => f.rule);

test.describe('content rules', () => {
  test('a transactional text message with good headers has no findings', () => {
    expect(checkContent(source())).toEqual([]);
  });

  test('every rule has a why and a fix, and every finding carries its rule\'s fix', () => {
    for (const rule of Object.values(CONTENT_RULES)) {
      expect(rule.why.length, rule.id).toBeGreaterThan(20);
      expect(rule.fix.length, rule.id).toBeGreaterThan(10);
    }
    const [f] = checkContent(source({ html: '<img src="a.png">' }));
    expect(f).toMatchObject({ rule: 'img-alt', severity: 'warning', where: 'html line 1: <img src="a.png">' });
    expect(f?.message).toContain(`Fix: ${CONTENT_RULES['img-alt']?.fix}`);
  });

  test('bulk-looking mail needs List-Unsubscribe with RFC 8058 one-click over https', () => {
    const newsletter = { text: 'Our news. Unsubscribe: https://acme.example/u' };
    expect(rules(source(newsletter))).toEqual(['list-unsubscribe']);
    expect(rules(source({ ...newsletter, extraHeaders: [{ key: 'list-unsubscribe', value: '<https://acme.example/u/1>' }] }))).toEqual(['one-click-unsubscribe']);
    const oneClick = { key: 'list-unsubscribe-post', value: 'List-Unsubscribe=One-Click' };
    expect(rules(source({ ...newsletter, extraHeaders: [{ key: 'list-unsubscribe', value: '<https://acme.example/u/1>, <mailto:u@acme.example>' }, oneClick] }))).toEqual([]);
    expect(rules(source({ ...newsletter, extraHeaders: [{ key: 'list-unsubscribe', value: '<mailto:u@acme.example>' }, oneClick] }))).toEqual(['one-click-unsubscribe']);
    expect(rules(source({ ...newsletter, extraHeaders: [{ key: 'list-unsubscribe', value: 'https://acme.example/u/1' }] }))).toEqual(['list-unsubscribe-syntax']);
    expect(rules(source({ extraHeaders: [{ key: 'list-unsubscribe', value: '<ftp://acme.example/u>' }] }), false)).toEqual(['list-unsubscribe-syntax']);
    // Transactional mail needs none of it; `bulk` overrides the guess either way.
    expect(rules(source(), true)).toEqual(['list-unsubscribe']);
    expect(rules(source(newsletter), false)).toEqual([]);
  });

  test('HTML constructs clients drop are found on their lines', () => {
    const html = [
      '<html><head><link rel="stylesheet" href="https://cdn.example/a.css"><link rel="preconnect" href="https://fonts.example">',
      '<style>@import url("https://cdn.example/b.css");</style></head><body>',
      '<script>track()</script><form action="/x"><input name="q"></form>',
      '<a href="http://acme.example/plain">plain</a> <a href="https://acme.example/ok">ok</a> <img src="logo.png" alt="Acme">',
      '</body></html>',
    ].join('\n');
    const findings = checkContent(source({ html }));
    expect(findings.map((f) => `${f.rule} @ ${f.where.split(':')[0]}`)).toEqual([
      'script @ html line 3',
      'form @ html line 3',
      'external-stylesheet @ html line 1',
      'link-element @ html line 1',
      'external-stylesheet @ html line 2',
      'plain-http-link @ html line 4',
    ]);
  });

  test('HTML over Gmail\'s clipping size is an error; an HTML-only message lacks a text part', () => {
    const big = `<p>${'x'.repeat(GMAIL_CLIP_BYTES)}</p>`;
    expect(rules(source({ html: big }))).toEqual(['html-size']);
    expect(rules(source({ html: '<p>hi</p>', text: null }))).toEqual(['text-part']);
  });

  test('missing or malformed Date, Message-ID and From are errors', () => {
    expect(rules(source({ headers: [] }))).toEqual(['date-header', 'message-id-header', 'from-header']);
    const malformed = [
      { key: 'from', value: 'a@acme.example, b@acme.example' },
      { key: 'date', value: '2026-11-25T19:00:00Z' },
      { key: 'message-id', value: 'no-brackets@acme.example' },
    ];
    const findings = checkContent(source({ headers: malformed }));
    expect(findings.map((f) => f.message.split('. Fix')[0])).toEqual([
      'Date "2026-11-25T19:00:00Z" is not an RFC 5322 date',
      'Message-ID "no-brackets@acme.example" is not one <unique@domain>',
      'From "a@acme.example, b@acme.example" is not exactly one mailbox',
    ]);
    expect(rules(source({ headers: [GOOD_HEADERS[1]!, GOOD_HEADERS[2]!, { key: 'from', value: 'hello@localhost' }] }))).toEqual(['from-header']);
  });

  test('the parts come from the raw source: the original HTML, not the sanitized one', async () => {
    const raw = new TextEncoder().encode(
      'From: hello@acme.example\r\nDate: Wed, 25 Nov 2026 19:00:00 +0000\r\nMessage-ID: <a@acme.example>\r\nContent-Type: text/html\r\n\r\n<p>hi</p><script>x()</script>\r\n',
    );
    const parts = await contentSourceOf({ raw: async () => raw });
    expect(parts.html).toContain('<script>');
    expect(parts.text).toBeNull();
    expect(rules(parts)).toEqual(['script', 'text-part']);
  });
});
