/**
 * The stored-bytes cap of memory mode, applied after each delivery: while the
 * store holds more than the cap, the oldest message of the largest inbox goes.
 * The flooder's inbox is the largest, so it pays first; mail is never refused
 * for a full store.
 *
 * @packageDocumentation
 */
import type { CapacityStore } from '../storage/contract/types.ts';

/** The logging it needs (a pino logger fits). */
interface RoomLogger {
  info(obj: object, msg?: string): void;
}

/** Keeps a store under its cap of stored bytes. */
export interface RoomKeeper {
  /** After a delivery stored `bytes` more: evicts until the store is under the cap; resolves with how many messages went. */
  stored(bytes: number): Promise<number>;
}

/**
 * Creates the keeper of one intake. It keeps an upper bound of the bytes held
 * (deletions elsewhere only lower the truth), so a delivery costs no query
 * until that bound passes the cap; then it measures, and evicts.
 */
export function createRoomKeeper(store: CapacityStore, maxBytes: number, logger: RoomLogger): RoomKeeper {
  let atMost: number | null = null;
  return {
    async stored(bytes) {
      if (atMost !== null) atMost += bytes;
      if (atMost !== null && atMost <= maxBytes) return 0;
      let total = await store.storedMessageBytes();
      let evicted = 0;
      while (total > maxBytes) {
        const gone = await store.evictOldestOfLargestInbox();
        if (!gone) break;
        total -= gone.size;
        evicted += 1;
        logger.info({ inboxId: gone.inboxId, messageId: gone.messageId, size: gone.size, maxBytes }, 'smtp: oldest message of the largest inbox evicted (stored bytes cap, --max-stored-bytes)');
      }
      atMost = total;
      return evicted;
    },
  };
}
