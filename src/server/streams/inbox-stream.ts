/**
 * The policy of `GET /inboxes/{id}/stream` (the connection itself is
 * `connection.ts`): replay by seq, then `ready`, then the inbox's live
 * messages in seq order, catching up from the store when a seq is skipped.
 *
 * @packageDocumentation
 */
import type { AccessEnd } from '../auth/access.ts';
import type { BusEvent } from '../events/types.ts';
import { formatEvent } from '../http/sse.ts';
import type { MessageRecord, MessageSummaryRecord } from '../storage/contract/types.ts';
import type { SseConnection, StreamPolicy } from './connection.ts';
import type { MessageFrames } from './frames.ts';
import { SeqLedger } from './ledger.ts';

/** Where an inbox stream reads its inbox's messages (the store). */
export interface InboxSource {
  /** The inbox's highest seq, or null once the inbox is gone. */
  lastSeq(): Promise<number | null>;
  /** Messages with seq > afterSeq, oldest first: whole records when the stream sends whole messages. */
  after(afterSeq: number, limit: number): Promise<(MessageSummaryRecord | MessageRecord)[]>;
}

/** What one inbox stream sends, besides its inbox. */
export interface InboxStreamSettings {
  replayPageSize: number;
  /** The bytes of `message` events, shared by the router's connections. */
  frames: MessageFrames;
  /** `?include=message`: message events carry the whole message. */
  whole: boolean;
  /** Resume after this seq (`Last-Event-ID`), or null for no replay. */
  lastEventId: number | null;
}

/**
 * Creates the policy of one inbox stream. It keeps the inbox in a
 * {@link SeqLedger}: a message event at or below its base is a duplicate; one
 * that skips a seq (an earlier message still on its way from another node, or
 * deleted) or a bus `resync` makes the stream read the store after its base,
 * which is the one way it catches up, as the `Last-Event-ID` replay does.
 */
export function inboxStreamPolicy(inboxId: string, source: InboxSource, settings: InboxStreamSettings): StreamPolicy {
  const ledger = new SeqLedger();
  const base = () => ledger.base(inboxId) ?? 0;

  /** Sends every stored message after `afterSeq`, page by page as the client takes them. */
  const readAfter = async (connection: SseConnection, afterSeq: number): Promise<void> => {
    let after = afterSeq;
    for (;;) {
      await connection.room();
      if (connection.closed) return;
      const page = await source.after(after, settings.replayPageSize);
      for (const message of page) {
        connection.write(settings.frames.frame(message, settings.whole));
        // Only what was really sent counts: a Last-Event-ID beyond the inbox's
        // last seq must not hide the next messages as duplicates.
        ledger.settle(inboxId, message.seq);
        after = message.seq;
      }
      if (page.length < settings.replayPageSize) return;
    }
  };

  /** Catches up from the store after the base (later events wait their turn). */
  const catchUp = async (connection: SseConnection): Promise<void> => {
    if ((await source.lastSeq()) === null) return connection.end({ event: 'inbox.deleted' });
    await readAfter(connection, base());
  };

  return {
    async start(connection) {
      const current = await source.lastSeq();
      if (current === null) return connection.end({ event: 'inbox.deleted' });
      ledger.start(inboxId, current);
      if (settings.lastEventId !== null) await readAfter(connection, settings.lastEventId);
      if (connection.closed) return;
      const lastSeq = base();
      connection.write(formatEvent('ready', { inboxId, lastSeq }, lastSeq));
    },
    handle(event: BusEvent, connection) {
      // A new inbox is news for the caller-wide stream only.
      if (event.type === 'inbox.created' || event.type === 'access.revoked') return;
      if (event.type === 'resync') return catchUp(connection);
      if (event.type !== 'message') return connection.end({ event: event.type });
      const { seq } = event.message;
      if (ledger.sent(inboxId, seq)) return;
      // A seq was skipped: an earlier message is still on its way, or was deleted. The store knows.
      if (seq !== base() + 1) return catchUp(connection);
      ledger.take(inboxId, seq);
      connection.write(settings.frames.frame(event.message, settings.whole));
    },
    endData(end: AccessEnd) {
      return end.event === 'access.revoked' ? { inboxId, reason: end.reason } : { inboxId };
    },
  };
}
