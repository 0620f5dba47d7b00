import type { MessageSummaryRecord } from '../storage/types.ts';

/**
 * What the service tells an inbox's subscribers. `resync` says events of the
 * inbox may have been missed (a bus that lost its database connection): a
 * subscriber catches up from the store after the last seq it has.
 */
export type BusEvent =
  | { type: 'message'; inboxId: string; message: MessageSummaryRecord }
  | { type: 'inbox.deleted' | 'inbox.expired'; inboxId: string }
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
}
