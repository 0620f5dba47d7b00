/**
 * The caps on active inboxes that the store keeps atomically, in the
 * transaction that creates an inbox.
 *
 * @packageDocumentation
 */

/** A cap on active inboxes that `createInbox` keeps atomically. */
export interface InboxCap {
  /** What is counted: guest inboxes of the creating address, or inboxes of the owner. */
  count: 'guestsOfAddress' | 'ownedBy';
  /** The most active inboxes allowed, the new one included. */
  max: number;
  /**
   * A second cap on the same subject (the address's guest inboxes, or the
   * owner's), counting only the active inboxes whose local part starts with
   * `localPartPrefix` (a phone's country code): the most allowed, the new one
   * included.
   */
  prefix?: { localPartPrefix: string; max: number };
}
