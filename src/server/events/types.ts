import type { AccessRevokedReason } from '../../wire/schemas.ts';
import type { MessageSummaryRecord } from '../storage/types.ts';

/**
 * What the service tells an inbox's subscribers. Every event is plain data
 * (a type, ids and strings; no functions, nothing JSON cannot carry), so a
 * cross-process bus can serialise it.
 *
 * - `message`: a message was committed to the inbox.
 * - `inbox.deleted` / `inbox.expired`: the inbox is gone; its streams end.
 * - `access.revoked`: a credential of the inbox's owner `userId` was revoked
 *   (`reason` says how). A stream of the inbox opened with a credential of that
 *   user checks its own credential again and ends if it no longer grants the
 *   inbox. It names the user, never a secret or its hash. One more such event,
 *   with `inboxId: null`, reaches only the caller-wide streams (`subscribeAll`),
 *   so that a user with no inbox hears of it too.
 */
export type BusEvent =
  | { type: 'message'; inboxId: string; message: MessageSummaryRecord }
  | { type: 'inbox.deleted' | 'inbox.expired'; inboxId: string }
  /** A new inbox (published for `subscribeAll` listeners; nobody subscribes to an inbox before it exists). */
  | { type: 'inbox.created'; inboxId: string }
  | { type: 'access.revoked'; inboxId: string | null; userId: string; reason: AccessRevokedReason };

/**
 * Publishes inbox events after they are committed to storage. Injected, never
 * global, so that a PostgreSQL LISTEN/NOTIFY bus can replace the in-process one.
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
}
