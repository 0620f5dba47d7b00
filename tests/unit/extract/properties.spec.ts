import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { extractLinks, extractOtp, extractOtps } from '../../../src/extract/index.ts';

test('extraction never throws on arbitrary text or markup', () => {
  const markup = fc.array(fc.oneof(fc.string(), fc.constantFrom('<a href="', '">', '</a>', '<td>', '</td>', '<br>', '&amp;', '#', '=\n', '=3D', 'https://', '<https://x', '[', ']', '1', '12', '-', ' ', '\n', '€', ':')), { maxLength: 60 }).map((parts) => parts.join(''));
  fc.assert(fc.property(markup, (s) => {
    extractLinks(s);
    extractLinks({ text: s });
    extractOtps(s);
    extractOtps({ html: s, text: s, subject: s });
  }), { numRuns: 300 });
});

test('a six-digit code next to "code" is found among dates, times, prices, phones, years, colours and order numbers', () => {
  const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));
  const distractor = fc.oneof(
    digits(5).map((n) => `Order ${n} has shipped.`),
    fc.tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1990, max: 2099 })).map(([d, m, y]) => `Placed on ${d}.${m}.${y}.`),
    fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 10, max: 59 })).map(([h, m]) => `Sent at ${h}:${m}.`),
    fc.tuple(fc.integer({ min: 1, max: 99999 }), fc.integer({ min: 10, max: 99 })).map(([a, c]) => `Total $${a}.${c}.`),
    digits(7).map((n) => `Call +1 (415) ${n.slice(0, 3)}-${n.slice(3)}.`),
    fc.integer({ min: 1990, max: 2099 }).map((y) => `© ${y} Acme Inc.`),
    digits(6).map((n) => `Theme colour #${n}.`),
    digits(6).map((n) => `Invoice no. ${n} attached.`),
    digits(5).map((n) => `Acme GmbH, Hauptstraße 5, ${n} Berlin.`),
    digits(6).map((n) => `Details at https://x.example/t/${n}.`),
  );
  fc.assert(fc.property(digits(6), fc.array(distractor, { maxLength: 6 }), fc.array(distractor, { maxLength: 6 }), fc.boolean(), (code, before, after, asHtml) => {
    const sentence = `Your verification code is ${code}.`;
    const found = asHtml
      ? extractOtp(`<div>${before.map((b) => `<p>${b}</p>`).join('')}<p>${sentence}</p>${after.map((a) => `<p>${a}</p>`).join('')}</div>`)
      : extractOtp([...before, sentence, ...after].join('\n'));
    expect(found).toBe(code);
  }), { numRuns: 300 });
});
