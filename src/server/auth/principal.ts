import type { ApiKeyCaps, UserRecord } from '../storage/contract/types.ts';

/**
 * Who is calling, resolved from the request's credential.
 * - `anonymous`: no credential (rate-limited by client address).
 * - `inboxToken`: `X-Inbox-Token`, grants exactly one inbox.
 * - `apiKey`: `Authorization: Bearer tm_…`, grants the user's own inboxes, within the key's own caps (`inboxkit keys create --max-…`).
 * - `session`: `Authorization: Bearer <session token>` from the PKCE exchange; same grants as the user's key.
 * - `operator`: `Authorization: Bearer tmo_…`, the operator token a loopback-bound
 *   service was started with (an inboxkit extension, for the viewer): sees every inbox.
 */
export type Principal =
  | { kind: 'anonymous'; clientAddress: string }
  | { kind: 'inboxToken'; inboxId: string; tokenHash: string }
  | { kind: 'apiKey'; user: UserRecord; keyHash: string; caps?: ApiKeyCaps }
  | {
      kind: 'session';
      user: UserRecord;
      tokenHash: string;
      expiresAt: number;
      /** The API key it was issued under, when that key has caps of its own: the session is held to them, counted with the key. */
      key?: { hash: string; caps: ApiKeyCaps };
    }
  | { kind: 'operator'; tokenHash: string };

/** The user behind a principal, or null for anonymous and inbox-token callers. */
export function userOf(principal: Principal): UserRecord | null {
  return principal.kind === 'apiKey' || principal.kind === 'session' ? principal.user : null;
}

/**
 * The caps of a principal's own API key: the key's, or for a session issued
 * under a key with caps, that key's (so a session never lifts them); undefined for the defaults.
 */
export function ownCapsOf(principal: Principal): ApiKeyCaps | undefined {
  if (principal.kind === 'apiKey') return principal.caps;
  if (principal.kind === 'session') return principal.key?.caps;
  return undefined;
}
