/**
 * The stored-bytes cap of memory mode, applied after each delivery: once the
 * store holds more than the cap, the oldest messages of the largest inbox go
 * until it is back under a low-water mark an eighth below the cap. The
 * flooder's inbox is the largest, so it pays first; mail is never refused for
 * a full store.
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
  /** After a delivery stored `bytes` more: evicts when the store is over the cap; resolves with how many messages went. */
  stored(bytes: number): Promise<number>;
}

/** Inboxes named in one eviction log line; the rest are counted. */
const LOGGED_INBOXES = 10;

/**
 * Creates the keeper of one intake. It keeps an upper bound of the bytes held
 * (deletions elsewhere only lower the truth), so a delivery costs no query
 * until that bound passes the cap; then it measures and, when over, evicts
 * down to the low-water mark in passes of the store's
 * `evictFromLargestInboxes` (each reads the inboxes' totals once). With the
 * mark an eighth below the cap, a store that mail keeps full measures and
 * evicts once per eighth of the cap delivered, not after every message.
 * Calls run one after another, so concurrent deliveries never evict twice.
 */
export function createRoomKeeper(store: CapacityStore, maxBytes: number, logger: RoomLogger): RoomKeeper {
  const lowWater = maxBytes - Math.floor(maxBytes / 8);
  let atMost: number | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  const makeRoom = async (bytes: number): Promise<number> => {
    if (atMost !== null) atMost += bytes;
    if (atMost !== null && atMost <= maxBytes) return 0;
    let total = await store.storedMessageBytes();
    let evicted = 0;
    const perInbox = new Map<string, number>();
    if (total > maxBytes) {
      while (total > lowWater) {
        const gone = await store.evictFromLargestInboxes(total - lowWater);
        if (gone.length === 0) break;
        for (const message of gone) {
          total -= message.size;
          perInbox.set(message.inboxId, (perInbox.get(message.inboxId) ?? 0) + 1);
        }
        evicted += gone.length;
      }
    }
    atMost = total;
    if (evicted > 0) {
      const inboxes = Object.fromEntries([...perInbox].slice(0, LOGGED_INBOXES));
      logger.info({ evicted, inboxes, otherInboxes: Math.max(0, perInbox.size - LOGGED_INBOXES), storedBytes: total, maxBytes }, 'intake: oldest messages of the largest inboxes evicted (stored bytes cap, --max-stored-bytes)');
    }
    return evicted;
  };

  return {
    stored(bytes) {
      const next = queue.then(() => makeRoom(bytes));
      queue = next.catch(() => {});
      return next;
    },
  };
}
