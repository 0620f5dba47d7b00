/**
 * The events, states and options of an inbox's event stream
 * ({@link InboxStream} in `stream.ts`).
 *
 * @packageDocumentation
 */
import type { Message, MessageSummary } from '../../wire/schemas.ts';

/** A message arrived in the inbox (or was replayed after `lastEventId`). */
export interface InboxMessageEvent {
  type: 'message';
  /** The event id: the message's `seq` as sent by the server. */
  id: string;
  /** The message's summary; fetch the whole message with `messages.get(message.id)` unless `whole` has it. */
  message: MessageSummary;
  /**
   * The whole message (the same object as `messages.get(message.id)` returns),
   * when the stream was opened with `includeMessage` and the server sent it
   * whole; `null` when it sent the summary (a server without the extension,
   * or a message over 1 MiB of JSON).
   */
  whole: Message | null;
}

/** The replay is done and the stream is live. Sent after every (re)connection. */
export interface InboxReadyEvent {
  type: 'ready';
  inboxId: string;
  /** `seq` of the newest message of the inbox when the stream went live (0 when empty). */
  lastSeq: number;
}

/** The inbox was deleted or expired; the stream ends after this event. */
export interface InboxGoneEvent {
  type: 'inbox.deleted' | 'inbox.expired';
  inboxId: string;
}

/**
 * The credential that opened the stream no longer grants the inbox (signed
 * out, revoked, expired: `reason` says which); the stream ends after this
 * event and does not reconnect.
 */
export interface InboxAccessRevokedEvent {
  type: 'access.revoked';
  inboxId: string;
  /** `session_signed_out`, `session_revoked`, `session_expired`, `api_key_revoked`, or a reason a newer server knows. */
  reason: string;
}

/** An event of an inbox's stream. Comments and unknown event names are skipped. */
export type InboxEvent = InboxMessageEvent | InboxReadyEvent | InboxGoneEvent | InboxAccessRevokedEvent;

/**
 * The health of a stream, which the stream alone judges:
 * - `idle`: not iterated yet;
 * - `connecting`: the first connection is being opened, or has not sent `ready` yet;
 * - `live`: the current connection sent `ready`;
 * - `reconnecting`: a connection dropped or failed; the next one is on its way;
 * - `unavailable`: the stream gave up (too many failures or drops, or an answer retrying cannot help);
 * - `ended`: the inbox went (`inbox.deleted`, `inbox.expired`), access ended (`access.revoked`), or the stream was closed. Final.
 */
export type StreamState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'unavailable' | 'ended';

/**
 * A change in the health of a stream's connection, reported to
 * `StreamOptions.onLifecycle` as it happens:
 * - `connected`: a connection's headers are in (`connection` counts from 1);
 * - `ready`: that connection sent `ready` (the replay is done, the stream is live);
 * - `handover`: the server hands connection `connection` over (it drains): the next
 *   connection is opened now, and the stream switches to it once it is live, while
 *   this one still delivers (no `dropped` unless this one ends first);
 * - `dropped`: the connection broke or ended; the stream reconnects after `reconnectInMs`;
 * - `unavailable`: the stream gives up; the loop throws `error` next.
 */
export type StreamLifecycleEvent =
  | { type: 'connected'; connection: number }
  | { type: 'ready'; connection: number; lastSeq: number }
  | { type: 'handover'; connection: number }
  | { type: 'dropped'; connection: number; reconnectInMs: number }
  | { type: 'unavailable'; error: unknown };

/** Options of `inboxes.stream()`. */
export interface StreamOptions {
  /** Resume after this event id (a message `seq`): messages after it are replayed first. */
  lastEventId?: string | number;
  /** Aborting ends the stream: the loop throws an `AbortError`. */
  signal?: AbortSignal;
  /** Send this inbox token instead of the client's credential. */
  inboxToken?: string;
  /**
   * Ask for whole messages (`?include=message`, an extension of the local
   * service): each message event then has {@link InboxMessageEvent.whole}
   * when the server sends it. Servers without the extension send summaries.
   * @defaultValue false
   */
  includeMessage?: boolean;
  /**
   * Milliseconds to wait for each connection's headers.
   * @defaultValue the client's `timeout`
   */
  timeout?: number;
  /**
   * Failed connection attempts in a row (connection errors, timeouts, 408, 429, 5xx) before
   * the stream gives up and throws the last error. 401, 403 and 404 are thrown at once.
   * @defaultValue 10
   */
  maxReconnectAttempts?: number;
  /**
   * Milliseconds between a drop and the reconnection, doubled for each failed attempt in a row.
   * @defaultValue the server's `retry:` value, 2000 before one is seen
   */
  reconnectDelayMs?: number;
  /**
   * A connection that sends nothing (not even a `: ping`) for this long is dropped and
   * reopened. 0 disables.
   * @defaultValue 45000
   */
  idleTimeoutMs?: number;
  /**
   * Called on every {@link StreamLifecycleEvent} (connected, ready, handover, dropped, unavailable), so a
   * caller can tell a live stream from one that keeps reconnecting without polling its state.
   * It runs inside the stream's loop: keep it short, and do not throw.
   */
  onLifecycle?: (event: StreamLifecycleEvent) => void;
  /**
   * A connection that has not sent `ready` this long after its headers counts
   * as a failed attempt (a proxy that buffers `text/event-stream` sends
   * nothing). 0 disables.
   * @defaultValue 0
   */
  readyTimeoutMs?: number;
  /**
   * Drops (a connection that was open and ended without a final event)
   * tolerated before the stream gives up as unavailable.
   * @defaultValue unlimited
   */
  maxDrops?: number;
}
