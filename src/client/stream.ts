/**
 * The live event stream of an inbox (`GET /inboxes/{id}/stream`), as an async
 * iterable of typed events that survives dropped connections.
 *
 * @packageDocumentation
 */
import type { Message, MessageSummary } from '../wire/schemas.ts';
import { ApiError, InboxkitError, RateLimitError, ResponseValidationError } from './errors.ts';
import type { RateLimit, ResponseInfo } from './types.ts';
import { LooseMessage, LooseMessageSummary, LooseStreamInboxGone, LooseStreamReady } from './internal/schemas.ts';
import { createSseDecoder } from './internal/sse.ts';
import type { SseEvent } from './internal/sse.ts';
import { path } from './internal/path.ts';
import { abortErrorFor, sleep } from './internal/sleep.ts';
import { excerpt } from './internal/transport.ts';
import type { StreamingAnswer, Transport } from './internal/transport.ts';

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

/** An event of an inbox's stream. Comments and unknown event names are skipped. */
export type InboxEvent = InboxMessageEvent | InboxReadyEvent | InboxGoneEvent;

/**
 * A change in the health of a stream's connection, reported to
 * {@link StreamOptions.onLifecycle} as it happens:
 * - `connected`: a connection's headers are in (`connection` counts from 1);
 * - `ready`: that connection sent `ready` (the replay is done, the stream is live);
 * - `dropped`: the connection broke or ended; the stream reconnects after `reconnectInMs`;
 * - `unavailable`: the stream gives up; the loop throws `error` next.
 */
export type StreamLifecycleEvent =
  | { type: 'connected'; connection: number }
  | { type: 'ready'; connection: number; lastSeq: number }
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
   * Called on every {@link StreamLifecycleEvent} (connected, ready, dropped, unavailable), so a
   * caller can tell a live stream from one that keeps reconnecting without polling its state.
   * It runs inside the stream's loop: keep it short, and do not throw.
   */
  onLifecycle?: (event: StreamLifecycleEvent) => void;
}

const DEFAULT_RECONNECT_MS = 2000;
const MAX_RECONNECT_MS = 30_000;

function canReconnectAfter(err: unknown): boolean {
  if (!(err instanceof InboxkitError)) return false;
  if (err instanceof ResponseValidationError) return false;
  if (err instanceof ApiError) return err.status === 408 || err.status === 429 || err.status >= 500;
  return true; // ConnectionError, TimeoutError
}

/**
 * The live events of one inbox. Iterate it once with `for await`; it connects on
 * the first iteration, replays what came after `lastEventId`, and reconnects by
 * itself after a drop (waiting the server's `retry:`, resending `Last-Event-ID`), so
 * no message is lost or repeated. `break`, `close()` or the signal close the connection.
 * The loop ends after `inbox.deleted` or `inbox.expired`.
 *
 * @example
 * ```ts
 * for await (const event of client.inboxes.stream(inbox.id)) {
 *   if (event.type === 'message') { console.log(event.message.subject); break; }
 * }
 * ```
 */
export class InboxStream implements AsyncIterable<InboxEvent> {
  /** The inbox this stream follows. */
  readonly inboxId: string;
  readonly #transport: Transport;
  readonly #options: StreamOptions;
  readonly #closer = new AbortController();
  #started = false;
  #lastEventId: string | undefined;
  #highestSeq = 0;
  #connections = 0;
  #response: ResponseInfo | null = null;

  /** Used by `inboxes.stream()`. */
  constructor(transport: Transport, inboxId: string, options: StreamOptions = {}) {
    this.inboxId = inboxId;
    this.#transport = transport;
    this.#options = options;
    if (options.lastEventId !== undefined) {
      this.#lastEventId = String(options.lastEventId);
      const seq = Number(this.#lastEventId);
      if (Number.isSafeInteger(seq)) this.#highestSeq = seq;
    }
    void path`/inboxes/${inboxId}/stream`; // refuse an empty id now rather than on the first iteration
  }

  /** The id of the last message event received (what a reconnection resumes after). */
  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  /** Connections opened so far (1 + reconnections). */
  get connections(): number {
    return this.#connections;
  }

  /** The answer of the current (or last) connection; `null` before the first. */
  get response(): ResponseInfo | null {
    return this.#response;
  }

  /** `X-RateLimit-*` values of the current (or last) connection; `null` before the first. */
  get rateLimit(): RateLimit | null {
    return this.#response?.rateLimit ?? null;
  }

  /** Closes the connection; a running loop ends without an error. */
  close(): void {
    this.#closer.abort();
  }

  /** Starts the stream. A stream can be iterated once. */
  [Symbol.asyncIterator](): AsyncGenerator<InboxEvent, void, undefined> {
    if (this.#started) {
      throw new InboxkitError(`The stream of inbox ${this.inboxId} is already being iterated; call inboxes.stream() again for a second reader.`);
    }
    this.#started = true;
    return this.#run();
  }

  /** Throws for a user abort, returns true for `close()`, false when still running. */
  #stopped(): boolean {
    const user = this.#options.signal;
    if (user?.aborted) throw abortErrorFor(user, `The stream of inbox ${this.inboxId}`);
    return this.#closer.signal.aborted;
  }

  async *#run(): AsyncGenerator<InboxEvent, void, undefined> {
    const user = this.#options.signal;
    const onUserAbort = () => this.#closer.abort(user?.reason);
    user?.addEventListener('abort', onUserAbort, { once: true });
    const maxAttempts = this.#options.maxReconnectAttempts ?? 10;
    const idleMs = this.#options.idleTimeoutMs ?? 45_000;
    let retryMs = this.#options.reconnectDelayMs ?? DEFAULT_RECONNECT_MS;
    let failures = 0;
    try {
      for (;;) {
        if (this.#stopped()) return;
        const connection = new AbortController();
        const signal = AbortSignal.any([this.#closer.signal, connection.signal]);
        let answer: StreamingAnswer;
        try {
          answer = await this.#connect(signal);
        } catch (err) {
          if (this.#stopped()) return;
          failures++;
          if (!canReconnectAfter(err) || failures > maxAttempts) {
            this.#options.onLifecycle?.({ type: 'unavailable', error: err });
            throw err;
          }
          const delay =
            err instanceof RateLimitError && err.retryAfter !== null
              ? err.retryAfter * 1000
              : Math.min(Math.max(retryMs, MAX_RECONNECT_MS), retryMs * 2 ** (failures - 1));
          if (!(await this.#pause(delay))) return;
          continue;
        }
        failures = 0;
        this.#connections++;
        this.#response = answer.info;
        this.#options.onLifecycle?.({ type: 'connected', connection: this.#connections });
        const decoder = createSseDecoder();
        let idle: ReturnType<typeof setTimeout> | undefined;
        const armIdle = () => {
          if (idleMs <= 0) return;
          clearTimeout(idle);
          idle = setTimeout(() => connection.abort(new Error(`no data for ${idleMs} ms`)), idleMs);
        };
        try {
          armIdle();
          for await (const chunk of answer.body as AsyncIterable<Buffer>) {
            armIdle();
            for (const raw of decoder.push(chunk)) {
              const event = this.#interpret(raw, answer);
              if (event === null) continue;
              if (event.type === 'ready') this.#options.onLifecycle?.({ type: 'ready', connection: this.#connections, lastSeq: event.lastSeq });
              yield event;
              if (event.type === 'inbox.deleted' || event.type === 'inbox.expired') return;
            }
          }
        } catch (err) {
          if (this.#stopped()) return;
          if (err instanceof InboxkitError) throw err;
          // Anything else is the connection breaking: reconnect below.
        } finally {
          clearTimeout(idle);
          answer.body.destroy();
        }
        if (this.#options.reconnectDelayMs === undefined && decoder.retry !== null) retryMs = decoder.retry;
        if (this.#stopped()) return;
        this.#options.onLifecycle?.({ type: 'dropped', connection: this.#connections, reconnectInMs: retryMs });
        if (!(await this.#pause(retryMs))) return;
      }
    } finally {
      user?.removeEventListener('abort', onUserAbort);
      this.#closer.abort();
    }
  }

  /** Waits before a reconnection; false when the stream was closed meanwhile. */
  async #pause(ms: number): Promise<boolean> {
    try {
      await sleep(ms, this.#closer.signal);
      return true;
    } catch {
      return !this.#stopped();
    }
  }

  async #connect(signal: AbortSignal): Promise<StreamingAnswer> {
    const headers: Record<string, string> = { 'cache-control': 'no-cache' };
    if (this.#lastEventId !== undefined) headers['last-event-id'] = this.#lastEventId;
    const answer = await this.#transport.streaming(
      {
        method: 'GET',
        path: path`/inboxes/${this.inboxId}/stream`,
        accept: 'text/event-stream',
        ...(this.#options.includeMessage === true ? { query: { include: 'message' } } : {}),
      },
      {
        signal,
        retry: false,
        headers,
        ...(this.#options.timeout !== undefined ? { timeout: this.#options.timeout } : {}),
        ...(this.#options.inboxToken !== undefined ? { inboxToken: this.#options.inboxToken } : {}),
      },
    );
    const type = answer.info.headers['content-type'] ?? '';
    if (!type.includes('text/event-stream')) {
      answer.body.destroy();
      throw new ResponseValidationError(
        `GET ${answer.url} answered ${answer.status} with Content-Type "${type}" instead of text/event-stream. Check that baseUrl points at the Disposable Inbox API v1 root.`,
        { body: '', status: answer.status, url: answer.url },
      );
    }
    return answer;
  }

  #json(raw: SseEvent, answer: StreamingAnswer): unknown {
    try {
      return JSON.parse(raw.data);
    } catch (cause) {
      throw new ResponseValidationError(
        `The stream of inbox ${this.inboxId} sent a "${raw.event}" event whose data is not JSON: ${JSON.stringify(excerpt(raw.data))}.`,
        { body: excerpt(raw.data), status: answer.status, url: answer.url },
        { cause },
      );
    }
  }

  #interpret(raw: SseEvent, answer: StreamingAnswer): InboxEvent | null {
    const where = { method: 'GET', url: answer.url, status: answer.status };
    switch (raw.event) {
      case 'message': {
        const data = this.#json(raw, answer);
        // A whole message has `headers`; a summary (a server without the extension, or a large message) has not.
        const sentWhole = this.#options.includeMessage === true && typeof data === 'object' && data !== null && 'headers' in data;
        const whole = sentWhole ? this.#transport.validate(where, LooseMessage, data) : null;
        const message = whole ?? this.#transport.validate(where, LooseMessageSummary, data);
        if (message.seq <= this.#highestSeq) return null; // already delivered before a reconnection
        this.#highestSeq = message.seq;
        const id = raw.id ?? String(message.seq);
        this.#lastEventId = id;
        return { type: 'message', id, message, whole };
      }
      case 'ready': {
        const ready = this.#transport.validate(where, LooseStreamReady, this.#json(raw, answer));
        // Without a Last-Event-ID the server replays nothing: remember where "live" began,
        // so a reconnection replays what arrived while the connection was down.
        if (this.#lastEventId === undefined && ready.lastSeq > this.#highestSeq) {
          this.#highestSeq = ready.lastSeq;
          this.#lastEventId = String(ready.lastSeq);
        }
        return { type: 'ready', inboxId: ready.inboxId, lastSeq: ready.lastSeq };
      }
      case 'inbox.deleted':
      case 'inbox.expired': {
        const data = raw.data.trim() === '' ? { inboxId: this.inboxId } : this.#json(raw, answer);
        const gone = this.#transport.validate(where, LooseStreamInboxGone, data);
        return { type: raw.event, inboxId: gone.inboxId };
      }
      default:
        return null;
    }
  }
}
