import { HttpError } from '../http/errors.ts';
import type { InboxRecord, Store, StorePage } from '../storage/contract/types.ts';
import type { Principal } from './principal.ts';

/** What visibility checks read: a server context fits. */
export interface VisibilityDeps {
  store: Pick<Store, 'findInboxById'>;
  /** The clock, in epoch milliseconds. */
  now(): number;
}

/** Whether an inbox is active (not expired) at `now`. */
export function isActive(inbox: InboxRecord, now: number): boolean {
  return inbox.expiresAt === null || inbox.expiresAt > now;
}

/** Whether a principal may see an inbox: its own inbox token, the owning user, or the operator. */
export function canSee(principal: Principal, inbox: InboxRecord): boolean {
  switch (principal.kind) {
    case 'inboxToken':
      return principal.inboxId === inbox.id;
    case 'apiKey':
    case 'session':
      return inbox.ownerUserId !== null && inbox.ownerUserId === principal.user.id;
    case 'operator':
      return true;
    default:
      return false;
  }
}

/**
 * Loads an inbox the caller may see, for every endpoint under `/inboxes/{id}`
 * and for messages (load the message, then its inbox through this).
 *
 * @throws HttpError `unauthorized` for an anonymous caller (these endpoints need a credential);
 *   `inbox_not_found` when the inbox does not exist, has expired, or is not the caller's
 *   (indistinguishable, so ids cannot be probed).
 */
export async function loadVisibleInbox(ctx: VisibilityDeps, principal: Principal, inboxId: string): Promise<InboxRecord> {
  if (principal.kind === 'anonymous') {
    throw new HttpError('unauthorized', 'This endpoint needs a credential: send X-Inbox-Token (from POST /inboxes) or Authorization: Bearer <API key>.');
  }
  const inbox = await ctx.store.findInboxById(inboxId);
  if (!inbox || !isActive(inbox, ctx.now()) || !canSee(principal, inbox)) {
    throw new HttpError('inbox_not_found', `No inbox ${JSON.stringify(inboxId)} is visible to this credential (it may not exist, have expired, or belong to someone else).`);
  }
  return inbox;
}

/** A caller who sees a list of inboxes: a user (their own), or the operator (every inbox). */
export type ListingPrincipal = Extract<Principal, { kind: 'apiKey' | 'session' | 'operator' }>;

/**
 * One page of the active inboxes a caller can see, by the one listing rule:
 * the operator sees every inbox, a user (API key or session) their own. (An
 * inbox token sees its inbox alone; the caller reads it with `findInboxById`.)
 */
export function listVisibleInboxes(
  ctx: { store: Pick<Store, 'listActiveInboxes' | 'listInboxesByOwner'>; now(): number },
  principal: ListingPrincipal,
  page: { cursor: string | null; limit: number },
): Promise<StorePage<InboxRecord>> {
  const options = { cursor: page.cursor, limit: page.limit, now: ctx.now() };
  return principal.kind === 'operator' ? ctx.store.listActiveInboxes(options) : ctx.store.listInboxesByOwner(principal.user.id, options);
}

/**
 * Throws 401 `unauthorized` unless the caller sent a credential.
 */
export function requireCredential(principal: Principal): asserts principal is Exclude<Principal, { kind: 'anonymous' }> {
  if (principal.kind === 'anonymous') {
    throw new HttpError('unauthorized', 'This endpoint needs a credential: send X-Inbox-Token (from POST /inboxes) or Authorization: Bearer <API key>.');
  }
}
