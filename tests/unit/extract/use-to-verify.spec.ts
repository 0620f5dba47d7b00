import { test, expect } from '@playwright/test';
import { extractOtp, extractOtps, type ExtractSource } from '../../../src/extract/index.ts';
import { sms } from './sms-sources.ts';

/**
 * Issue 39's SMS shape, in SMS and email alike: "Use 246810 to verify your
 * number" names no code, yet a person reads the number as one, because the
 * message asks for it to be used, entered or typed to verify, confirm or sign
 * in. Phone numbers, amounts, dates and order numbers in the same place stay
 * out.
 */

const codes = (source: ExtractSource) => extractOtps(source).map((c) => c.code);

test.describe('a number the message asks to be used to verify, confirm or sign in', () => {
  test('is the code of an SMS that names no code, with a support phone number after it', () => {
    expect(extractOtp(sms('Use 246810 to verify your number with Acme. Questions? Call 1-800-555-0199'))).toBe('246810');
  });

  test('is read in English, German, French, Spanish and Portuguese', () => {
    expect(extractOtp(sms('Enter 482913 to sign in to Acme.'))).toBe('482913');
    expect(extractOtp(sms('Gib 731952 ein, um deine Nummer zu bestätigen.'))).toBe('731952');
    expect(extractOtp(sms('Verwende 5308, um dich bei Acme anzumelden.'))).toBe('5308');
    expect(extractOtp(sms('Utilisez 619274 pour vérifier votre numéro Acme.'))).toBe('619274');
    expect(extractOtp(sms('Usa 840315 para iniciar sesión en Acme.'))).toBe('840315');
    expect(extractOtp(sms('Use 275064 para confirmar seu número na Acme.'))).toBe('275064');
  });

  test('is read in an email too, where the HTML sets nothing apart', () => {
    expect(extractOtp({ html: '<p>Hi Sam, type 90817263 to confirm your new email address. Thanks, Acme</p>', subject: 'Your Acme account' })).toBe('90817263');
  });

  test('the reasons say it was asked to be used to verify', () => {
    expect(extractOtps(sms('Use 246810 to verify your number with Acme.'))[0]?.reasons).toContain('asked to be used to verify, confirm or sign in ("Use … to verify")');
  });

  test('phone numbers, amounts, dates and order numbers in its place are not codes', () => {
    expect(codes(sms('Use 1-800-555-0199 to verify your identity by phone.'))).toEqual([]);
    expect(codes(sms('Utilisez le 01 84 88 20 20 pour confirmer votre rendez-vous.'))).toEqual([]);
    expect(codes(sms('Use $1,250.00 to complete your order.'))).toEqual([]);
    expect(codes(sms('Enter 12/03/2026 to confirm your booking.'))).toEqual([]);
    expect(codes(sms('Gib 28.11.2026 ein, um den Termin zu bestätigen.'))).toEqual([]);
    expect(codes(sms('Enter order 482913 to confirm delivery.'))).toEqual([]);
    expect(() => extractOtp(sms('Use 1-800-555-0199 to verify your identity by phone.'))).toThrow();
  });

  test('a number used for something else is not announced', () => {
    expect(() => extractOtp(sms('Use 482913 to track your parcel.'))).toThrow();
    expect(extractOtps(sms('Use 482913 to track your parcel.'))[0]?.reasons.join()).not.toContain('asked to be used');
    expect(codes(sms('Enter 2026 to continue.'))).toEqual([]);
    expect(() => extractOtp({ html: '<p>Use SAVE20 to complete your order and get 20% off.</p>', subject: 'Your weekend offer' })).toThrow();
  });
});
