/**
 * Whether a credential still grants an inbox, for connections that outlive
 * the request that opened them (the event stream): HTTP requests check their
 * credential once, a stream checks again whenever access may have ended.
 *
 * @packageDocumentation
 */
import type { AccessRevokedReason } from '../../wire/schemas.ts';
import type { Store } from '../storage/contract/types.ts';
import type { Principal } from './principal.ts';

/** What {@link checkAccess} reads: a server context fits. */
export interface AccessDeps {
  store: Pick<Store, 'findInboxById' | 'findUserByApiKeyHash' | 'findSession'>;
  /** The clock, in epoch milliseconds. */
  now(): number;
}

/** How access to an inbox ended: the inbox went away, or the credential did. */
export type AccessEnd =
  | { event: 'inbox.deleted' | 'inbox.expired' }
  | { event: 'access.revoked'; reason: AccessRevokedReason };

/**
 * Checks, now, whether `principal` still reaches `inboxId`.
 *
 * @param hint - The reason an `access.revoked` event gave, used for a session the
 *   store only knows as revoked (signed out and revoked by code replay look alike there).
 * @returns `null` while access holds, otherwise how it ended.
 */
export async function checkAccess(deps: AccessDeps, principal: Principal, inboxId: string, hint?: AccessRevokedReason): Promise<AccessEnd | null> {
  const inbox = await deps.store.findInboxById(inboxId);
  if (!inbox) return { event: 'inbox.deleted' };
  if (inbox.expiresAt !== null && inbox.expiresAt <= deps.now()) return { event: 'inbox.expired' };
  return checkCredential(deps, principal, hint);
}

/**
 * Checks, now, whether the credential itself still holds, whatever inbox it is
 * used for: an API key not revoked, a session neither signed out, revoked nor
 * expired. An inbox token and the operator token hold for as long as what they
 * open (the caller checks the inbox).
 *
 * @param hint - As for {@link checkAccess}.
 * @returns `null` while the credential holds, otherwise the `access.revoked` end.
 */
export async function checkCredential(
  deps: AccessDeps,
  principal: Principal,
  hint?: AccessRevokedReason,
): Promise<Extract<AccessEnd, { event: 'access.revoked' }> | null> {
  switch (principal.kind) {
    case 'apiKey':
      return (await deps.store.findUserByApiKeyHash(principal.keyHash)) ? null : { event: 'access.revoked', reason: 'api_key_revoked' };
    case 'session': {
      const session = await deps.store.findSession(principal.tokenHash);
      if (!session || session.revoked) {
        return { event: 'access.revoked', reason: hint === 'session_signed_out' || hint === 'session_revoked' || hint === 'api_key_revoked' ? hint : 'session_revoked' };
      }
      return session.expiresAt <= deps.now() ? { event: 'access.revoked', reason: 'session_expired' } : null;
    }
    default:
      return null;
  }
}

/**
 * The instant (epoch ms) access ends by itself: the inbox's expiry or the
 * session's, whichever comes first; `null` when neither expires.
 */
export function accessDeadline(principal: Principal, inboxExpiresAt: number | null): number | null {
  const sessionEnd = principal.kind === 'session' ? principal.expiresAt : null;
  if (inboxExpiresAt === null) return sessionEnd;
  return sessionEnd === null ? inboxExpiresAt : Math.min(inboxExpiresAt, sessionEnd);
}

/**
 * Whether an `access.revoked` event about `userId` can concern a stream opened
 * with `principal` (the stream then checks its credential again).
 */
export function concernsPrincipal(principal: Principal, userId: string, reason: AccessRevokedReason): boolean {
  if (principal.kind === 'apiKey') return principal.user.id === userId && reason === 'api_key_revoked';
  // A revoked key also ends the sessions issued under it, so every reason concerns a session.
  if (principal.kind === 'session') return principal.user.id === userId;
  return false;
}
