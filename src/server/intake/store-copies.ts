/**
 * The intake's store step, the one place any message becomes inbox copies:
 * one transaction for every copy, the per-inbox and stored-bytes bounds
 * (evicting the oldest, logged), then, committed, each copy published (a
 * failing publish is logged, never turned into a failure) and queued for
 * forwarding, and the copies counted.
 *
 * @packageDocumentation
 */
import type { EventBus } from '../events/types.ts';
import type { ForwardQueue } from '../forward/forwarder.ts';
import type { InboxRecord, MessageEnvelope, MessageRecord, NewMessage, Store } from '../storage/contract/types.ts';
import { createRoomKeeper } from './make-room.ts';
import type { Channel } from './types.ts';

/** The logging the intake needs (a pino logger fits). */
export interface IntakeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What the store step is told to keep within. */
export interface StoreLimits {
  /** Messages kept per inbox (the oldest are evicted past it); null: no limit. */
  maxMessagesPerInbox: number | null;
  /** Bytes of mail the store may hold (the oldest of the largest inboxes are evicted past it); null/absent: no cap. */
  maxStoredBytes?: number | null | undefined;
}

/** Told of the copies stored, by channel (the service's metrics). */
export interface StoreObserver {
  stored(channel: string, copies: number): void;
}

/** One inbox's copy to store: the inbox, and its envelope. */
export interface CopyTarget {
  inbox: InboxRecord;
  envelope: MessageEnvelope;
}

/** What the store step needs. */
export interface StoreStepDeps {
  store: Store;
  bus: EventBus;
  logger: IntakeLogger;
  now(): number;
  limits: StoreLimits;
  /** Where copies for forwarding inboxes go; `null` when the service has no relay. */
  forwarder: ForwardQueue | null;
  /** Told of the copies stored, by channel. */
  observer?: StoreObserver | null | undefined;
}

/** Stores copies of a message, once each inbox. */
export type StoreCopies = (channel: Channel, targets: readonly CopyTarget[], message: NewMessage, raw: Uint8Array | null) => Promise<MessageRecord[]>;

/**
 * Creates the store step of one service (one room keeper for every channel,
 * so the stored-bytes cap counts SMTP and SMS alike). `raw`, when given, is
 * what forwarding inboxes relay.
 */
export function createStoreStep(deps: StoreStepDeps): StoreCopies {
  const { store, bus, logger, limits } = deps;
  const room = limits.maxStoredBytes == null ? null : createRoomKeeper(store, limits.maxStoredBytes, logger);
  return async (channel, targets, message, raw) => {
    if (targets.length === 0) return [];
    const envelopes = new Map(targets.map((t) => [t.inbox.id, t.envelope]));
    const stored = await store.insertMessage([...envelopes.keys()], message, deps.now(), envelopes);
    if (limits.maxMessagesPerInbox !== null) {
      for (const inboxId of envelopes.keys()) {
        const evicted = await store.evictOldest(inboxId, limits.maxMessagesPerInbox);
        if (evicted > 0) logger.info({ inboxId, evicted, channel: channel.id }, 'intake: oldest messages evicted (messages per inbox limit)');
      }
    }
    await room?.stored(stored.reduce((sum, record) => sum + record.size, 0));
    // Committed: from here on nothing may turn the acceptance into a failure.
    const byId = new Map(targets.map((t) => [t.inbox.id, t]));
    for (const record of stored) {
      try {
        bus.publish({ type: 'message', inboxId: record.inboxId, message: record });
      } catch (error) {
        logger.error({ err: error, messageId: record.id, channel: channel.id }, 'intake: publishing the message event failed');
      }
      const target = byId.get(record.inboxId);
      if (raw && target?.inbox.forwardTo && deps.forwarder) {
        deps.forwarder.enqueue({ messageId: record.id, inboxId: record.inboxId, to: target.inbox.forwardTo, envelopeFrom: target.envelope.mailFrom, raw });
      }
    }
    deps.observer?.stored(channel.id, stored.length);
    return stored;
  };
}
