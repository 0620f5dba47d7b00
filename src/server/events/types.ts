import type { MessageRecord } from '../storage/types.ts';

/** What the service tells an inbox's subscribers. */
export type BusEvent =
  /** A message was stored; `message` is the whole stored copy, as `Store.findMessage` reads it. */
  | { type: 'message'; inboxId: string; message: MessageRecord }
  | { type: 'inbox.deleted' | 'inbox.expired'; inboxId: string };

/**
 * Publishes inbox events after they are committed to storage. Injected, never
 * global, so that a PostgreSQL LISTEN/NOTIFY bus can replace the in-process one.
 */
export interface EventBus {
  /** Delivers an event to the current subscribers of its inbox; never blocks on them. */
  publish(event: BusEvent): void;
  /** Subscribes to one inbox; returns the unsubscribe function. */
  subscribe(inboxId: string, listener: (event: BusEvent) => void): () => void;
}
