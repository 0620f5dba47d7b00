/**
 * The capacity aggregate of the store: what it holds (bytes of mail; inboxes,
 * phones and messages) and making room.
 *
 * @packageDocumentation
 */

/** The capacity aggregate of a {@link Store}: the bytes of mail held, and making room (the stored-bytes cap of memory mode). */
export interface CapacityStore {
  /** The sum of the raw sizes of every stored message. */
  storedMessageBytes(): Promise<number>;
  /**
   * What the store holds, expired inboxes not yet swept included: email
   * inboxes, phones (inboxes whose local part is an E.164 number) and
   * messages. One pass over the inboxes, never over the messages (each
   * inbox keeps its own count, written with every insert and delete).
   */
  storedCounts(): Promise<StoredCounts>;
  /**
   * Deletes oldest messages, each time of the inbox holding the most bytes at
   * that moment, until at least `bytesToFree` bytes went, nothing is stored,
   * or `EVICTION_PASS_MAX_MESSAGES` messages went (./eviction.ts); in one
   * transaction, with the inboxes' totals read once. Returns what went, in order.
   */
  evictFromLargestInboxes(bytesToFree: number): Promise<EvictedMessage[]>;
}

/** What a store holds (see {@link CapacityStore.storedCounts}). */
export interface StoredCounts {
  inboxes: number;
  phones: number;
  messages: number;
}

/** A message the stored-bytes cap evicted. */
export interface EvictedMessage {
  inboxId: string;
  messageId: string;
  /** Its raw size, in bytes. */
  size: number;
}
