/**
 * The shapes SMS codes come in, read by the same extraction as email: the
 * code first, Android's SMS Retriever form, the origin-bound line of WebOTP
 * and iOS, a brand prefix, a long message in several parts, and an amount,
 * a date or a phone number beside the code.
 */
import { test, expect } from '@playwright/test';
import { extractOtp, extractOtps } from '../../src/extract/index.ts';
import { originBoundCode } from '../../src/extract/sms.ts';

const sms = (text: string) => ({ text, html: null, subject: '' });

const SHAPES: Array<[string, string, string]> = [
  ['the code first', '123456 is your Acme code', '123456'],
  ['Google\'s G- prefix', 'G-552211 is your Google verification code.', '552211'],
  ['Android SMS Retriever: <#> prefix and an 11-character app hash last', '<#> Your Acme code is 483920\nFA+9qCX9VSu', '483920'],
  ['Android SMS Retriever with the code first', '<#> 592013 is your verification code. 1Ab2Cd3Ef4G', '592013'],
  ['WebOTP / iOS origin-bound line after the text', 'Your Acme code is 739201\n\n@app.example #739201', '739201'],
  ['origin-bound line with an embedding origin', 'Your code is 620581.\n\n@acme.example #620581 %shop.example', '620581'],
  ['origin-bound line alone', '@app.example #448812', '448812'],
  ['brand prefix in brackets', '[Acme] 918273 is your sign-in code. Do not share it.', '918273'],
  ['brand prefix and a 4-digit code', '[Acme] Your code: 4729', '4729'],
  ['an amount, a date and a phone number beside the code', 'Acme: Your payment of $1,250.00 on 12/03/2026 needs confirmation. Code 573920. Questions? Call +1 202 555 0123.', '573920'],
  ['an amount and a reference date after the code', 'Your Acme code is 381729. Valid for 10 minutes. Amount: 149.99 EUR. Ref 2026-11-28.', '381729'],
  ['an order number, a date and a price after the code', 'Acme: 847362 is your code. Order #10234 ships on 28/11/2026 for £45.00.', '847362'],
  ['a code written in two groups', 'Your verification code is: 123 456', '123456'],
  ['a long message in several parts', `Your Acme code is 271828. ${'Thank you for choosing Acme; reply STOP to opt out. '.repeat(8)}Call 202-555-0142 for help.`, '271828'],
];

for (const [shape, text, code] of SHAPES) {
  test(`an SMS with ${shape} yields ${code}`, () => {
    expect(extractOtp(sms(text))).toBe(code);
  });
}

test('the origin-bound line names the code only as the last line, and only when it fits the options', () => {
  expect(originBoundCode('@app.example #123456\nthanks')).toBeNull();
  expect(originBoundCode('code\n@app.example #123456', { length: 4 })).toBeNull();
  expect(originBoundCode('code\n@app.example #AB12CD')).toBeNull();
  expect(originBoundCode('code\n@app.example #AB12CD', { alphanumeric: true })).toBe('AB12CD');
  expect(originBoundCode('a colour #448812 in a sentence')).toBeNull();
});

test('the candidates of an SMS list its origin-bound code first, saying it is the domain-bound code', () => {
  const [first, ...rest] = extractOtps(sms('Your code is 123456\n\n@app.example #123456'));
  expect(first?.code).toBe('123456');
  expect(first?.reasons[0]).toBe('the domain-bound code of the origin-bound last line "@app.example #123456" (WebOTP / iOS: the code for app.example)');
  expect(rest.map((c) => c.code)).not.toContain('123456');
  const alone = extractOtps(sms('@app.example #448812'));
  expect(alone.map((c) => c.code)).toEqual(['448812']);
  expect(alone.rejected.map((r) => r.raw)).not.toContain('#448812');
});

test('an origin-bound code comes first even when another number in the SMS scores higher', () => {
  const candidates = extractOtps(sms('Your verification code: 918273\n\n@app.example #507316'));
  expect(candidates[0]?.code).toBe('507316');
  expect(extractOtp(sms('Your verification code: 918273\n\n@app.example #507316'))).toBe(candidates[0]?.code);
});
