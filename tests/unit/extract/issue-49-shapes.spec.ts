import { test, expect } from '@playwright/test';
import { extractLinks, extractOtp, extractOtps, findLink } from '../../../src/extract/index.ts';
import { refusal, sms } from './sms-sources.ts';

/**
 * Issue 49's general shapes: "token" names a code; a masked card number, a
 * promotional code and an order number are refused with the reason in
 * otps(); a bare URL ends where a reader ends it in every script; and in a
 * text body the site's own address ending a sentence about the action does
 * not tie with the action's URL.
 */

test.describe('"token" names a code', () => {
  test('in an email and an SMS, in English, German, French, Russian and Japanese', () => {
    expect(extractOtp({ subject: 'Sign in', text: 'Hello Alex,\n\nYour token is 482913. It expires in 10 minutes.\n\nThe Tasklane team' })).toBe('482913');
    expect(extractOtp({ subject: 'Anmeldung', text: 'Ihr Token lautet 482913 und ist 10 Minuten gültig.' })).toBe('482913');
    expect(extractOtp({ subject: 'Connexion', text: 'Votre jeton est 482913, valable 10 minutes.' })).toBe('482913');
    expect(extractOtp({ subject: 'Вход', text: 'Ваш токен: 482913, действует 10 минут.' })).toBe('482913');
    expect(extractOtp({ subject: 'ログイン', text: 'あなたのトークンは482913です（10分間有効）。' })).toBe('482913');
    expect(extractOtps(sms('Your token is 482913, valid for 10 minutes'))[0]?.reasons).toContain('near "token"');
  });
});

test.describe('codes a reader would not call one-time codes', () => {
  test('the visible part of a masked card number beside a password word is refused, and otps() says why', () => {
    const error = refusal({ subject: 'Karta', text: 'Hasło 3-D Secure do transakcji kartą 6219*8610427 wysłaliśmy osobno. Kwota: 120,00 zł.' });
    expect(error.rejected.find((r) => r.raw.includes('8610427'))?.reason).toBe('part of a masked card or account number');
    expect(refusal(sms('Your card ****4242 was charged. Password changes are made in the app.')).rejected.some((r) => r.reason === 'part of a masked card or account number')).toBe(true);
    expect(refusal(sms('Acct XX1234 debited. Not you? Reset your password.')).rejected.some((r) => r.reason === 'part of a masked card or account number')).toBe(true);
  });

  test('a code in a sentence that makes an offer is a promotional code, refused with that reason', () => {
    const html = '<h1>Spring sale</h1><p>Use code <b>SPRING15</b> at checkout for 15% off everything.</p><a href="https://shop.example/sale">Shop now</a>';
    const error = refusal({ html, subject: 'Our spring sale starts now' });
    expect(error.rejected.find((r) => r.raw === 'SPRING15')?.reason).toMatch(/^in a sentence that makes an offer \(".+"\): a promotional code, not a one-time code$/);
    expect(refusal({ html: '<p>Mit dem Code <b>FRUEHLING20</b> erhalten Sie 20 % Rabatt.</p>', subject: 'Frühlingsangebot' }).rejected.find((r) => r.raw === 'FRUEHLING20')?.reason).toContain('promotional code');
  });

  test('a one-time code beside an offer in another sentence is still read', () => {
    expect(extractOtp({ html: '<p>Your verification code is <b>482913</b>.</p><p>Enjoy 15% off your first order!</p>', subject: 'Verify' })).toBe('482913');
  });
});

test.describe('a bare URL in text ends where a reader ends it', () => {
  test('at full-width punctuation', () => {
    expect(extractLinks({ text: '詳細：https://site.example/help。ありがとう' }).map((l) => l.href)).toEqual(['https://site.example/help']);
    expect(extractLinks({ text: '（https://site.example/a）、「https://site.example/b」' }).map((l) => l.href)).toEqual(['https://site.example/a', 'https://site.example/b']);
    expect(extractLinks({ text: '请访问https://site.example/r，谢谢' }).map((l) => l.href)).toEqual(['https://site.example/r']);
  });

  test('at text of a script written without spaces that follows it, but not inside a path or query', () => {
    expect(extractLinks({ text: 'https://site.example/reset?t=abc123をクリック' }).map((l) => l.href)).toEqual(['https://site.example/reset?t=abc123']);
    expect(extractLinks({ text: '링크: https://site.example/k에서 확인' }).map((l) => l.href)).toEqual(['https://site.example/k']);
    expect(extractLinks({ text: 'https://ja.wikipedia.org/wiki/日本 と https://site.example/s?q=東京' }).map((l) => decodeURI(l.href))).toEqual(['https://ja.wikipedia.org/wiki/日本', 'https://site.example/s?q=東京']);
  });
});

test.describe('the site\'s own address ending a sentence about the action', () => {
  const body = (label: string) => `Hello,\n\na password reset was requested for your account on https://site.example.\n${label}https://site.example/reset-password/abc123def456\n\nIf you did not ask for it, ignore this mail.`;

  test('does not tie with the action\'s URL on its own line, and says why it was set aside', () => {
    expect(findLink({ text: body('\n'), subject: 'Reset' }, /reset/i).href).toBe('https://site.example/reset-password/abc123def456');
    const link = findLink({ text: body('To reset your password, open:\n'), subject: 'Reset' }, 'reset');
    expect(link.href).toBe('https://site.example/reset-password/abc123def456');
    const mention = extractLinks({ text: body('To reset your password, open:\n') }, 'reset').find((l) => l.href === 'https://site.example/');
    expect(mention?.reasons?.join()).toContain('a mention of the site, not the link to act on');
  });

  test('is still the link when nothing else carries the filter', () => {
    expect(findLink({ text: 'Welcome! Sign in any time on https://site.example.\n\nThanks', subject: 'Welcome' }, /sign in/i).href).toBe('https://site.example/');
  });
});

test.describe('codes that are not digits', () => {
  test('lower-case letters and digits in dashed groups are the code when set apart near a code word or named right before, typed without the dashes', () => {
    const html = '<p>Your login code for Tasklane:</p><p><code style="font-family: monospace; font-size: 24px">ab123-4567c</code></p><p>This code expires in 15 minutes.</p>';
    const [best] = extractOtps({ html, subject: 'Tasklane login code' });
    expect(best).toMatchObject({ code: 'ab1234567c', raw: 'ab123-4567c' });
    expect(best?.reasons[0]).toBe('lower case letters and digits in dash-joined groups: set apart like a code');
    expect(extractOtp({ text: 'Your sign-in code is ab123-4567c', subject: 'Sign in' })).toBe('ab1234567c');
  });

  test('words joined by dashes are the code, dashes kept, when set apart in a box under a code word', () => {
    const html = '<p>Here is your temporary login code:</p><div style="padding:16px;background:#f4f4f4;font-family:monospace"><code>maple-river-stone-lamp</code></div>';
    expect(extractOtp({ html, subject: 'Your login code' })).toBe('maple-river-stone-lamp');
  });

  test('hyphenated prose and identifiers are not codes, and are not listed as ruled out when no code word is near', () => {
    const prose = extractOtps({ html: '<p>See the follow-up-meeting-notes for the project-status-review.</p>', subject: 'Notes' });
    expect(prose.map((c) => c.code)).toEqual([]);
    expect(prose.rejected).toEqual([]);
    const near = refusal({ html: '<p>Your code arrives soon. Meanwhile read the maple-river-stone-lamp story inline with other text.</p>', subject: 'Soon' });
    expect(near.rejected.find((r) => r.raw === 'maple-river-stone-lamp')?.reason).toBe('words joined by dashes, and only a nearby code word says code');
  });
});
