/**
 * PKCE helpers (RFC 7636) for the extension's connect flow.
 *
 * @packageDocumentation
 */
import { createHash, randomBytes } from 'node:crypto';
import { InboxkitError } from './core/errors.ts';

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * A new random PKCE code verifier: 43 characters of base64url (32 random bytes).
 *
 * @example
 * ```ts
 * const verifier = createPkceVerifier();
 * const { code } = await client.extension.createCode(pkceChallenge(verifier), redirectUri);
 * const token = await client.extension.exchange(code, verifier, redirectUri);
 * ```
 */
export function createPkceVerifier(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The S256 code challenge of a verifier: base64url(SHA-256(verifier)), without padding.
 * Throws when the verifier is not 43–128 characters of `A-Z a-z 0-9 - . _ ~`.
 */
export function pkceChallenge(verifier: string): string {
  if (!VERIFIER.test(verifier)) {
    throw new InboxkitError(
      `A PKCE code verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~" (RFC 7636 section 4.1); got ${verifier.length} characters. Use createPkceVerifier() to make one.`,
    );
  }
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
