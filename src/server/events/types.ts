import type { MessageSummaryRecord } from '../storage/types.ts';

/** What the service tells an inbox's subscribers. */
export type BusEvent =
  | { type: 'message'; inboxId: string; message: MessageSummaryRecord }
  | { type: 'inbox.deleted' | 'inbox.expired'; inboxId: string }
  /** A new inbox (published for `subscribeAll` listeners; nobody subscribes to an inbox before it exists). */
  | { type: 'inbox.created'; inboxId: string };

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
