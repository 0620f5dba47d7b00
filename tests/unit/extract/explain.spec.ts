import { test, expect } from '@playwright/test';
import { extractOtp, OtpNotFoundError, type ExtractSource, type OtpOptions } from '../../../src/extract/index.ts';

/**
 * Issue 37: when otp() finds nothing, its error lists what looked closest to
 * a code and why each was ruled out, so a user sees at once whether
 * `{ length }` or `{ pattern }` is the fix.
 */

function failure(source: ExtractSource, options?: OtpOptions): OtpNotFoundError {
  try { extractOtp(source, options); } catch (e) { if (e instanceof OtpNotFoundError) return e; throw e; }
  throw new Error('expected extractOtp to throw');
}

test('a code longer than the default is listed with the length that would read it', () => {
  const error = failure({ text: 'Your verification code is 12345678901.' });
  expect(error.closest).toEqual([{ raw: '12345678901', reason: 'after "verification code": 11 digits, more than the 10 a code has by default; pass { length: 11 }' }]);
  expect(error.message).toContain('Closest to a code, but no built-in shape:\n  - 12345678901 (after "verification code": 11 digits, more than the 10 a code has by default; pass { length: 11 })');
  expect(extractOtp({ text: 'Your verification code is 12345678901.' }, { length: 11 })).toBe('12345678901');
});

test('a code shorter than the default is listed the same way, in German and French too', () => {
  expect(failure({ text: 'Your code: 482' }).closest[0]?.reason).toBe('after "code": 3 digits, fewer than the 4 a code has by default; pass { length: 3 }');
  expect(failure({ text: 'Ihr Bestätigungscode lautet 913.' }).closest[0]?.raw).toBe('913');
  expect(failure({ text: 'Votre code de connexion : 57' }).closest[0]?.reason).toMatch(/pass \{ length: 2 \}$/);
});

test('a layout no built-in shape has is listed with a pattern that reads it, and the pattern works', () => {
  const error = failure({ text: 'Your access code: 12_34_56_78' });
  const miss = error.closest[0];
  expect(miss?.raw).toBe('12_34_56_78');
  expect(miss?.reason).toBe('after "access code": has characters no built-in code has; pass { pattern: /\\b\\d{2}_\\d{2}_\\d{2}_\\d{2}\\b/ }');
});

test('a long token named inline is ruled out with the reason, and a pattern reads it', () => {
  const error = failure({ text: 'Your sign-in code is ABCDEFGHJKLMN2.' });
  expect(error.message).toContain('ABCDEFGHJKLMN2: a long token: not on a line of its own right after a code or token is named');
  expect(extractOtp({ text: 'Your sign-in code is ABCDEFGHJKLMN2.' }, { pattern: /\b[A-Z0-9]{14}\b/ })).toBe('ABCDEFGHJKLMN2');
});

test('digits in a layout no shape reads get a pattern that reads them', () => {
  const error = failure({ text: 'Your login code is 48.29.13' });
  expect(error.closest).toEqual([{ raw: '48.29.13', reason: 'after "login code": digits in a layout no built-in code has; pass { pattern: /\\b\\d{2}\\.\\d{2}\\.\\d{2}\\b/ }' }]);
  expect(extractOtp({ text: 'Your login code is 48.29.13' }, { pattern: /\b\d{2}\.\d{2}\.\d{2}\b/ })).toBe('482913');
});

test('a message with nothing code-like says so', () => {
  expect(failure({ text: 'Hello, nothing here.' }).message).toContain('Nothing in the message looked like a code');
});
