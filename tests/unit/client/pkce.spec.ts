import { test, expect } from '@playwright/test';
import { createPkceVerifier, pkceChallenge, InboxkitError } from '../../../src/client/index.ts';

// RFC 7636 Appendix B prints this challenge (checked with `openssl dgst -sha256 -binary | base64url`).
// Note: a value ending in "…WbuQ6WHJ5Q6U" circulating in the project's briefs is not the RFC's.
test('the S256 challenge of the RFC 7636 Appendix B verifier is the one the RFC gives', () => {
  expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
});

test('new verifiers are 43 base64url characters and differ each time', () => {
  const a = createPkceVerifier();
  const b = createPkceVerifier();
  expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(a).not.toBe(b);
  expect(pkceChallenge(a)).toMatch(/^[A-Za-z0-9_-]{43}$/);
});

test('a verifier that is too short or has other characters is refused with the rule to follow', () => {
  expect(() => pkceChallenge('short')).toThrow(InboxkitError);
  expect(() => pkceChallenge('short')).toThrow(/43 to 128 characters/);
  expect(() => pkceChallenge(`${'a'.repeat(42)}!`)).toThrow(/createPkceVerifier/);
});
