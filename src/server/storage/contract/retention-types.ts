/**
 * The retention aggregate of the store: how long mail is kept.
 *
 * @packageDocumentation
 */

/**
 * The owner an inbox is charged to when sweeps are shared out fairly: its
 * API-key user, else the client address that created it (a guest), else one
 * shared owner for the rest. The same SQL in both dialects.
 */
export const SWEEP_OWNER_SQL = "COALESCE('user:' || owner_user_id, 'addr:' || creator_address, '')";

/** The retention aggregate of a {@link Store}: how long mail is kept (`--message-ttl`). */
export interface RetentionStore {
  /**
   * Deletes the messages received before `receivedBefore` (epoch ms) in up to
   * `maxInboxes` inboxes, keeping each inbox's message count; returns how
   * many went. The inboxes are taken oldest mail first and fairly between
   * owners (as `sweepExpired` takes them): every owner's inbox with the
   * oldest such mail, then every owner's next, so one owner's many inboxes
   * do not hold back another's. With several nodes on one database, each message is deleted by
   * one call only, and an inbox busy elsewhere is left for a later call.
   */
  sweepOldMessages(receivedBefore: number, maxInboxes: number): Promise<number>;
}
