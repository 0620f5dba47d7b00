/**
 * Secrets: generation, and the PKCE (RFC 7636, S256) check. Secrets are random
 * base64url strings with a prefix that tells their kind; only their hashes are stored.
 *
 * @packageDocumentation
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefix of API keys. */
export const API_KEY_PREFIX = 'tm_';
/** Prefix of session tokens. */
export const SESSION_PREFIX = 'tms_';
/** Prefix of inbox tokens. */
export const INBOX_TOKEN_PREFIX = 'tmi_';
/** Prefix of the operator token (see `ServerContext.operatorTokenHash`). */
export const OPERATOR_TOKEN_PREFIX = 'tmo_';
/** Prefix of connect codes. */
export const CONNECT_CODE_PREFIX = 'tmc_';

/** A new secret: the prefix and 32 random bytes in base64url. */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/**
 * Whether `key` has an API key's shape (`tm_` and at least 16 letters, digits,
 * `-` or `_`): the one rule the service (SMTP AUTH, the credentials) and
 * `inboxkit keys` check a key against before looking it up.
 */
export function isApiKeyShape(key: string): boolean {
  return /^tm_[A-Za-z0-9_-]{16,}$/.test(key);
}

/** A new API key, `tm_` + 32 random bytes in base64url. */
export function newApiKey(): string {
  return newSecret(API_KEY_PREFIX);
}

/**
 * A new operator token, `tmo_` + 32 random bytes in base64url: the secret of a
 * loopback-bound service's operator view of every inbox (`inboxkit serve` makes
 * one at each start).
 */
export function newOperatorToken(): string {
  return newSecret(OPERATOR_TOKEN_PREFIX);
}

/** Whether a text has the shape of an operator token: `tmo_` and at least 16 letters, digits, `-` or `_`. */
export function isOperatorTokenShape(token: string): boolean {
  return /^tmo_[A-Za-z0-9_-]{16,}$/.test(token);
}

/** Hex SHA-256 of a secret: how every secret is stored and looked up. Secrets are never stored in clear. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  // Compare digests so lengths never leak and timingSafeEqual gets equal sizes.
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

/** The S256 challenge of a PKCE code verifier: base64url(SHA-256(verifier)). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** RFC 7636 §4.1: 43 to 128 characters of `[A-Za-z0-9-._~]`. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * Whether a code verifier matches an S256 challenge (RFC 7636 §4.6), compared in constant time.
 *
 * @example
 * ```ts
 * verifyPkce('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'); // true (RFC 7636 Appendix B)
 * ```
 */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return constantTimeEqual(s256Challenge(verifier), challenge);
}
