/**
 * Telling open streams that a user's credential was revoked: one
 * `access.revoked` event per active inbox of the user, published after the
 * revocation is committed.
 *
 * @packageDocumentation
 */
import type { AccessRevokedReason } from '../../wire/schemas.ts';
import type { Store } from '../storage/contract/types.ts';
import type { EventBus } from './types.ts';

/** What {@link publishAccessRevoked} reads: a server context fits. */
export interface RevocationDeps {
  store: Pick<Store, 'listInboxesByOwner'>;
  bus: EventBus;
  /** The clock, in epoch milliseconds. */
  now(): number;
}

/**
 * Publishes `access.revoked` to every active inbox of `userId`, and once with
 * no inbox for the caller-wide streams. Call it after
 * the store has committed the revocation: a stream that receives the event
 * re-reads its credential and must see it revoked.
 *
 * @returns How many inboxes were told.
 */
export async function publishAccessRevoked(deps: RevocationDeps, userId: string, reason: AccessRevokedReason): Promise<number> {
  let cursor: string | null = null;
  let told = 0;
  do {
    const page = await deps.store.listInboxesByOwner(userId, { cursor, limit: 100, now: deps.now() });
    for (const inbox of page.items) deps.bus.publish({ type: 'access.revoked', inboxId: inbox.id, userId, reason });
    told += page.items.length;
    cursor = page.nextCursor;
  } while (cursor !== null);
  deps.bus.publish({ type: 'access.revoked', inboxId: null, userId, reason });
  return told;
}
