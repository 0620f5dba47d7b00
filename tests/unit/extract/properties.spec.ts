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

/** A 6–10 character code of lower case, upper case and digits, with one of each. */
const mixedCode = (shape: (chars: string[]) => string[] = (c) => c) => {
  const pool = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return fc.array(fc.integer({ min: 0, max: pool.length - 1 }), { minLength: 6, maxLength: 10 })
    .map((ix) => shape(ix.map((i) => pool[i] ?? 'a')))
    .map((chars) => chars.join(''))
    .filter((c) => /[a-z]/.test(c) && /[A-Z]/.test(c) && /\d/.test(c));
};
const nearbyNoise = fc.constantFrom('Signed in from an iPhone15 with iOS17.', 'Works with GitHub, PayPal and Office365.', 'Session id: ses_Pq4Tx9Lm2.', 'Request dGVzdA9x== logged.', 'Questions? Call +1 (415) 555-0134.', 'Sent 2024-03-15 at 10:42.', 'Total $19.99.');

test('a mixed-case code named a code right before it is found, whatever its letters, among names, tokens and numbers', () => {
  fc.assert(fc.property(mixedCode(), fc.array(nearbyNoise, { maxLength: 4 }), fc.boolean(), (code, noise, asHtml) => {
    const sentence = `To sign in, enter the code ${code} in the app.`;
    const found = asHtml ? extractOtp({ html: `<p>${sentence}</p>${noise.map((n) => `<p>${n}</p>`).join('')}` }) : extractOtp({ text: [sentence, ...noise].join('\n') });
    expect(found).toBe(code);
  }), { numRuns: 300 });
});

test('a mixed-case code set apart after a code word is found when no word is spelled with it', () => {
  // Digits second and second to last: no name with a number has that shape (Python3, iPhone15, Log4Shell).
  const spread = mixedCode((c) => c.map((ch, i) => (i === 1 || i === c.length - 2 ? String((ch.charCodeAt(0) % 10)) : ch)));
  fc.assert(fc.property(spread, fc.array(nearbyNoise, { maxLength: 4 }), (code, noise) => {
    const html = `<p>Your sign-in code:</p><p style="font-size:24px"><b>${code}</b></p>${noise.map((n) => `<p>${n}</p>`).join('')}`;
    expect(extractOtp({ html })).toBe(code);
  }), { numRuns: 300 });
});

test('names with a number, brand names and token pieces next to a code word are never codes', () => {
  const names = fc.constantFrom('iPhone15', 'Python3', 'Office365', 'Windows11', 'Log4Shell', 'macOS14', 'Pixel8', 'GitHub', 'PayPal', 'iPhone');
  fc.assert(fc.property(names, fc.constantFrom('b', 'code', 'td'), (name, tag) => {
    const html = `<p>No verification code is needed for this sign-in.</p><table><tr><td>Device</td><${tag}>${name}</${tag}></tr></table><p>Session ses_${name}Xk9 token dGVzdA9x==</p>`;
    expect(extractOtps({ html }).map((c) => c.code)).toEqual([]);
  }), { numRuns: 100 });
});
