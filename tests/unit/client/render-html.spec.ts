/**
 * Preparing an email's HTML for a deterministic render: dynamic parts found
 * and neutralized, remote images handled, what would run removed.
 */
import { test, expect } from '@playwright/test';
import * as cheerio from 'cheerio';
import { prepareRenderHtml } from '../../../src/checks/render-source.ts';

const prepare = (html: string, codes: string[] = [], images: 'blocked' | 'placeholder' | 'loaded' = 'placeholder') => prepareRenderHtml(html, { images, codes, maskDynamic: true });

test('the code, a token URL in the text and the dates are marked: the code by a placeholder of its length, the token URL\'s query by a run of fixed length, each word and number of a date by 00', () => {
  const { html, dynamic } = prepare('<p>Code: 482913. Or open https://app.example/magic?token=a1b2c3d4e5f6g7h8i9j0 before 25 November 2026 at 19:17 UTC (sent 2026-11-25T19:17:03Z).</p>', ['482913']);
  expect(dynamic).toEqual([
    { kind: 'code', text: '482913' },
    { kind: 'token', text: 'https://app.example/magic?token=a1b2c3d4e5f6g7h8i9j0' },
    { kind: 'date', text: '25 November 2026 at 19:17 UTC' },
    { kind: 'date', text: '2026-11-25T19:17:03Z' },
  ]);
  const spans = cheerio.load(html)('[data-inboxkit-dynamic]').toArray().map((el) => cheerio.load(el).text());
  // The token's length changes from send to send, so its query becomes 48 characters whatever it was.
  expect(spans[0]).toBe('000000');
  expect(spans[1]).toBe(`00000://000.0000000/00000?${'0'.repeat(48)}`);
  expect(spans.slice(2)).toEqual(['00 00 00 00 00:00 00', '00-00-00:00:00']);
  expect(html).not.toContain('482913');
});

test('a date has the same placeholder whatever its day: weekday and month names and day numbers of other lengths do not change it', () => {
  const placeholder = (date: string) => cheerio.load(prepare(`<p>Requested on ${date}.</p>`).html)('[data-inboxkit-dynamic]').text();
  expect(placeholder('Wednesday, 25 November 2026 at 23:59 UTC')).toBe('00, 00 00 00 00 00:00 00');
  expect(placeholder('Thursday, 3 May 2027 at 0:14 UTC')).toBe(placeholder('Wednesday, 25 November 2026 at 23:59 UTC'));
});

test('what only looks dynamic is left alone: an IP address, a plain link, a phone number, text in a style', () => {
  const { dynamic } = prepare('<style>.x{width:1.5.2020px}</style><p>From 192.0.2.44, see https://acme.example/help or call +1 (415) 555-0134.</p>');
  expect(dynamic).toEqual([]);
});

test('maskDynamic: false marks nothing', () => {
  expect(prepareRenderHtml('<p>Code 482913 on 2026-11-25</p>', { images: 'placeholder', codes: ['482913'], maskDynamic: false }).dynamic).toEqual([]);
});

test('remote images become placeholders of their declared size, data: images stay, and blocked or loaded keep the source', () => {
  const html = '<img id="r" src="https://cdn.example/a.png" width="120" height="40" srcset="https://cdn.example/a2.png 2x"><img id="d" src="data:image/gif;base64,R0lGOD">';
  const $ = cheerio.load(prepare(html).html);
  expect(decodeURIComponent($('#r').attr('src') ?? '')).toContain('width="120" height="40"');
  expect($('#r').attr('srcset')).toBeUndefined();
  expect($('#d').attr('src')).toBe('data:image/gif;base64,R0lGOD');
  for (const images of ['blocked', 'loaded'] as const) expect(cheerio.load(prepare(html, [], images).html)('#r').attr('src')).toBe('https://cdn.example/a.png');
});

test('scripts, frames, event handlers, javascript: URLs, base and meta refresh are removed', () => {
  const { html } = prepare('<html><head><base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=https://evil.example"></head><body><script>alert(1)</script><iframe src="https://x"></iframe><a href="javascript:alert(1)" onclick="x()" target="_blank">x</a><img src="x" onerror="y()"></body></html>');
  expect(html).not.toMatch(/<script|<iframe|<base|http-equiv|onclick|onerror|javascript:|target=/i);
});

test('an unknown image mode is refused', () => {
  expect(() => prepareRenderHtml('<p>x</p>', { images: 'lazy' as never, codes: [], maskDynamic: true })).toThrow(/images must be 'blocked', 'placeholder' or 'loaded', got "lazy"/);
});
