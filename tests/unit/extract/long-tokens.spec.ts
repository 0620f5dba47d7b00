import { test, expect } from '@playwright/test';
import { extractOtp, extractOtps, type ExtractSource } from '../../../src/extract/index.ts';
import { refusal } from './sms-sources.ts';

/**
 * Found by the project corpus (Sylius's API password reset, p59): a long
 * mixed-case token the mail names a code or token in a "label: value" line
 * ("Ihr Code zum Zurücksetzen des Passworts lautet: pQ7vK2xR…") is the code a
 * person copies, in every language the label is written in; the same shape in
 * prose, after another kind of label, or cut out of a longer identifier is not.
 */

const TOKEN = 'pQ7vK2xR9mWc4ZtL8nBf3HsJ6yGd1AeU5kVo0rXq7TzN2wLc9MbF4jRs8DhY3uKa';
const codes = (source: ExtractSource) => extractOtps(source).map((c) => c.code);

test.describe('a long mixed-case token named a code or token and closing its line', () => {
  test('is the code in German, English, French and Polish', () => {
    expect(extractOtp({ html: `<div>Um das Passwort zurückzusetzen, benutzen Sie den unten stehenden Code:</div><div>Ihr Code zum Zurücksetzen des Passworts lautet: ${TOKEN}</div>` })).toBe(TOKEN);
    expect(extractOtp({ text: `To reset your password - use the token below:\n\nYour password reset token is: ${TOKEN}\n` })).toBe(TOKEN);
    expect(extractOtp({ text: `Votre jeton de réinitialisation de mot de passe est : ${TOKEN}` })).toBe(TOKEN);
    expect(extractOtp({ text: `Twój kod resetowania hasła: ${TOKEN}` })).toBe(TOKEN);
  });

  test('the reasons say it was named and closes its line', () => {
    expect(extractOtps({ text: `Your password reset token is: ${TOKEN}` })[0]?.reasons[0]).toBe('a long token: named a code right before it, closing its line');
  });

  test('in prose, after another kind of label, or as a piece of a longer identifier it is not a code', () => {
    expect(codes({ text: `Your session ${TOKEN} expires tomorrow.` })).toEqual([]);
    expect(codes({ text: `Your token ${TOKEN} was revoked by an administrator yesterday.` })).toEqual([]);
    expect(codes({ text: `Your order reference is: ${TOKEN}` })).toEqual([]);
    expect(codes({ text: `Tracking code: ${TOKEN}` })).toEqual([]);
    expect(codes({ text: `Your code is in the app. Build ${TOKEN}` })).toEqual([]);
    expect(codes({ text: `Your token is: ${TOKEN}_live` })).toEqual([]);
    expect(codes({ text: `Your token is: ${TOKEN.slice(0, 30)}/${TOKEN.slice(30)}` })).toEqual([]);
  });
});

test('a string that starts near the code word but runs past the 80 characters read after it is suggested whole, with a pattern that reads it', () => {
  const text = 'Your access code, requested a moment ago from the Acme app on your phone, is: 12_34_56_78_90_12_34_56_78';
  const error = (() => { try { extractOtp({ text }); } catch (e) { return e as { closest: Array<{ raw: string; reason: string }> }; } throw new Error('no error'); })();
  expect(error.closest[0]?.raw).toBe('12_34_56_78_90_12_34_56_78');
  expect(extractOtp({ text }, { pattern: /\b\d{2}(?:_\d{2}){8}\b/ })).toBe('12_34_56_78_90_12_34_56_78');
});

/**
 * Found by the grown corpus (Wekan's invitation mails, p148 and p150): an
 * invitation code is 16 random bytes in URL-safe base64, so it may hold `-`
 * and `_`; named a code and closing its line, it is the code, typed whole.
 */
test.describe('a URL-safe base64 token named a code and closing its line', () => {
  test('is the code with its underscore or dash, in Georgian and Hebrew as in English', () => {
    expect(extractOtp({ text: 'თქვენი მოწვევის კოდია: Xk3vQp9_rT2mL8wZ1yB4cA\n\nმადლობა.' })).toBe('Xk3vQp9_rT2mL8wZ1yB4cA');
    expect(extractOtp({ text: 'קוד ההזמנה הוא: r7Tn2WqK-9vLx4Bz0mYp3g\n\nתודה.' })).toBe('r7Tn2WqK-9vLx4Bz0mYp3g');
    expect(extractOtp({ text: 'Your invitation code is: Xk3vQp9_rT2mL8wZ1yB4cA' })).toBe('Xk3vQp9_rT2mL8wZ1yB4cA');
  });

  test('in prose, shorter than a long token, or without a code word it is not a code', () => {
    expect(codes({ text: 'Your session Xk3vQp9_rT2mL8wZ1yB4cA expires tomorrow.' })).toEqual([]);
    expect(codes({ text: 'Your invitation code is: ses_Pq4Tx9Lm2' })).toEqual([]);
    expect(codes({ text: 'Reference: Xk3vQp9_rT2mL8wZ1yB4cA' })).toEqual([]);
    expect(codes({ text: `Your token is: Xk3vQp9_rT2mL8wZ1yB4cA/${TOKEN.slice(0, 20)}` })).toEqual([]);
  });

  test('named a code in prose that goes on after it, it is ruled out with the reason a long token has', () => {
    const error = refusal({ text: 'Your invitation code Xk3vQp9_rT2mL8wZ1yB4cA was sent to the whole team yesterday.' });
    expect(error.rejected.find((r) => r.raw === 'Xk3vQp9_rT2mL8wZ1yB4cA')?.reason).toMatch(/^a long token: /);
  });
});
