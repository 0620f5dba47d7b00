import type { AccessRevokedReason } from '../../wire/schemas.ts';
import type { MessageRecord } from '../storage/contract/types.ts';

/**
 * What the service tells an inbox's subscribers. Every event is plain data
 * (a type, ids and strings; no functions, nothing JSON cannot carry), so a
 * cross-process bus can serialise it.
 *
 * - `message`: a message was committed to the inbox; `message` is the whole
 *   stored copy, as `Store.findMessage` reads it.
 * - `inbox.deleted` / `inbox.expired`: the inbox is gone; its streams end.
 * - `access.revoked`: a credential of the inbox's owner `userId` was revoked
 *   (`reason` says how). A stream of the inbox opened with a credential of that
 *   user checks its own credential again and ends if it no longer grants the
 *   inbox. It names the user, never a secret or its hash. One more such event,
 *   with `inboxId: null`, reaches only the caller-wide streams (`subscribeAll`),
 *   so that a user with no inbox hears of it too.
 * - `resync`: events of the inbox may have been missed (a bus that lost its
 *   database connection): a subscriber catches up from the store after the
 *   last seq it has. A `subscribeAll` listener treats any `resync` as "events
 *   of any inbox may have been missed" (after a reconnect it gets one whose
 *   inboxId is `'*'`).
 */
export type BusEvent =
  | { type: 'message'; inboxId: string; message: MessageRecord }
  | { type: 'inbox.deleted' | 'inbox.expired'; inboxId: string }
  /** A new inbox (published for `subscribeAll` listeners; nobody subscribes to an inbox before it exists). */
  | { type: 'inbox.created'; inboxId: string }
  | { type: 'access.revoked'; inboxId: string | null; userId: string; reason: AccessRevokedReason }
  | { type: 'resync'; inboxId: string };

/**
 * Publishes inbox events after they are committed to storage. Injected, never
 * global: the in-process bus (`bus.ts`) serves one node, the LISTEN/NOTIFY bus
 * (`postgres-bus.ts`) every node on one PostgreSQL database.
 */
export interface EventBus {
  /** Delivers an event to the current subscribers of its inbox; never blocks on them. */
  publish(event: BusEvent): void;
  /** Subscribes to one inbox; returns the unsubscribe function. */
  subscribe(inboxId: string, listener: (event: BusEvent) => void): () => void;
  /**
   * Subscribes to the events of every inbox (the `GET /me/events` stream
   * filters them per caller); returns the unsubscribe function.
   */
  subscribeAll(listener: (event: BusEvent) => void): () => void;
  /**
   * Whether this bus can lose events and publish `resync` (the LISTEN/NOTIFY
   * bus can; the in-process bus cannot). Subscribers keep what they need to
   * catch up only when it can.
   */
  readonly mayResync?: boolean;
}
