import { test, expect } from '@playwright/test';
import { constantTimeEqual, newApiKey, s256Challenge, verifyPkce } from '../../../src/server/auth/secrets.ts';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
// RFC 7636 Appendix B. (The value E9Melhoa…buQ6WHJ5Q6U sometimes quoted for it is wrong.)
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

test('the S256 challenge of the RFC 7636 Appendix B verifier is the one the RFC gives', () => {
  expect(s256Challenge(VERIFIER)).toBe(CHALLENGE);
  expect(verifyPkce(VERIFIER, CHALLENGE)).toBe(true);
});

test('a verifier that differs by one character does not match the challenge', () => {
  expect(verifyPkce(`${VERIFIER.slice(0, -1)}l`, CHALLENGE)).toBe(false);
});

test('the challenge itself is not accepted as the verifier (plain method is refused)', () => {
  expect(verifyPkce(CHALLENGE, CHALLENGE)).toBe(false);
});

test('a verifier shorter than 43 characters or with characters outside the RFC set is refused', () => {
  const short = 'a'.repeat(42);
  expect(verifyPkce(short, s256Challenge(short))).toBe(false);
  const bad = `${'a'.repeat(42)}!`;
  expect(verifyPkce(bad, s256Challenge(bad))).toBe(false);
  const longest = 'b'.repeat(128);
  expect(verifyPkce(longest, s256Challenge(longest))).toBe(true);
  const tooLong = 'b'.repeat(129);
  expect(verifyPkce(tooLong, s256Challenge(tooLong))).toBe(false);
});

test('constant-time comparison tells equal strings from different ones of any length', () => {
  expect(constantTimeEqual('https://a.example/cb', 'https://a.example/cb')).toBe(true);
  expect(constantTimeEqual('https://a.example/cb', 'https://a.example/cb/')).toBe(false);
  expect(constantTimeEqual('', '')).toBe(true);
  expect(constantTimeEqual('x', '')).toBe(false);
});

test('API keys are tm_ followed by 32 random bytes in base64url, never twice the same', () => {
  const a = newApiKey();
  const b = newApiKey();
  expect(a).toMatch(/^tm_[A-Za-z0-9_-]{43}$/);
  expect(Buffer.from(a.slice(3), 'base64url')).toHaveLength(32);
  expect(a).not.toBe(b);
});
