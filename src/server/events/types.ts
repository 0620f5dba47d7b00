import type { MessageSummaryRecord } from '../storage/types.ts';

/**
 * What the service tells an inbox's subscribers. `resync` says events of the
 * inbox may have been missed (a bus that lost its database connection): a
 * subscriber catches up from the store after the last seq it has. A
 * `subscribeAll` listener treats any `resync` as "events of any inbox may have
 * been missed" (after a reconnect it gets one whose inboxId is `'*'`).
 */
export type BusEvent =
  | { type: 'message'; inboxId: string; message: MessageSummaryRecord }
  | { type: 'inbox.deleted' | 'inbox.expired'; inboxId: string }
  /** A new inbox (published for `subscribeAll` listeners; nobody subscribes to an inbox before it exists). */
  | { type: 'inbox.created'; inboxId: string }
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
