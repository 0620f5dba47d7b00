/**
 * The retention aggregate of the store: how long mail is kept.
 *
 * @packageDocumentation
 */

/** The retention aggregate of a {@link Store}: how long mail is kept (`--message-ttl`). */
export interface RetentionStore {
  /**
   * Deletes the messages received before `receivedBefore` (epoch ms) in up to
   * `maxInboxes` inboxes, keeping each inbox's message count; returns how
   * many went. With several nodes on one database, each message is deleted by
   * one call only, and an inbox busy elsewhere is left for a later call.
   */
  sweepOldMessages(receivedBefore: number, maxInboxes: number): Promise<number>;
}
