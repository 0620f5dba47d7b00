/**
 * The stored-bytes cap of memory mode, applied after each delivery: while the
 * store holds more than the cap, the oldest message of the largest inbox goes.
 * The flooder's inbox is the largest, so it pays first; mail is never refused
 * for a full store.
 *
 * @packageDocumentation
 */
import type { CapacityStore } from '../storage/types.ts';

/** The logging it needs (a pino logger fits). */
interface RoomLogger {
  info(obj: object, msg?: string): void;
}

/**
 * Evicts until the store holds at most `maxBytes` of mail.
 *
 * @returns How many messages went.
 */
export async function makeRoom(store: CapacityStore, maxBytes: number, logger: RoomLogger): Promise<number> {
  let total = await store.storedMessageBytes();
  let evicted = 0;
  while (total > maxBytes) {
    const gone = await store.evictOldestOfLargestInbox();
    if (!gone) break;
    total -= gone.size;
    evicted += 1;
    logger.info({ inboxId: gone.inboxId, messageId: gone.messageId, size: gone.size, maxBytes }, 'smtp: oldest message of the largest inbox evicted (stored bytes cap, --max-stored-bytes)');
  }
  return evicted;
}
