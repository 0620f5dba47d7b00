/**
 * The notification the PostgreSQL store sends itself, inside the transaction
 * that stores a message, so it reaches the other nodes exactly when the message
 * is committed (and never for a message rolled back). The event bus on
 * LISTEN/NOTIFY (`../../events/postgres-bus.ts`) reads this format for every event.
 *
 * @packageDocumentation
 */

/** The channel every node LISTENs on. */
export const EVENTS_CHANNEL = 'inboxkit_events';

/**
 * A bus event as notified: small (ids only, well under PostgreSQL's 8000-byte
 * payload limit). `n` is the sending node, `e` the event without its message,
 * `m` the message's id and seq when the event carries one (read back from the table).
 */
export interface EventNotification {
  n: string;
  e: { type: string; inboxId: string | null } & Record<string, unknown>;
  m?: { id: string; seq: number };
}

/** The notification of a message stored in an inbox. */
export function messageNotification(node: string, inboxId: string, messageId: string, seq: number): string {
  const payload: EventNotification = { n: node, e: { type: 'message', inboxId }, m: { id: messageId, seq } };
  return JSON.stringify(payload);
}
