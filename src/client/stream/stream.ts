/**
 * The live event stream of an inbox (`GET /inboxes/{id}/stream`), as an async
 * iterable of typed events that survives dropped connections.
 *
 * @packageDocumentation
 */
import { ApiError, InboxkitError, RateLimitError, ResponseValidationError } from '../core/errors.ts';
import type { RateLimit, ResponseInfo } from '../core/types.ts';
import { systemClock } from '../internal/clock.ts';
import type { Clock } from '../internal/clock.ts';
import { LooseMessage, LooseMessageSummary, LooseStreamAccessRevoked, LooseStreamInboxGone, LooseStreamReady } from '../internal/schemas.ts';
import type { SseEvent } from '../internal/sse.ts';
import { path } from '../internal/path.ts';
import { abortErrorFor, sleep } from '../internal/sleep.ts';
import { excerpt } from '../internal/transport.ts';
import type { StreamingAnswer, Transport } from '../internal/transport.ts';

import { HANDOVER_EVENT, readAhead, readingOf } from './reading.ts';
import type { Reading } from './reading.ts';
import type { InboxEvent, StreamOptions, StreamState } from './stream-events.ts';

export type {
  InboxAccessRevokedEvent,
  InboxEvent,
  InboxGoneEvent,
  InboxMessageEvent,
  InboxReadyEvent,
  StreamLifecycleEvent,
  StreamOptions,
  StreamState,
} from './stream-events.ts';

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
  readonly #transport: Pick<Transport, 'streaming' | 'validate'>;
  readonly #options: StreamOptions;
  readonly #clock: Clock;
  #state: StreamState = 'idle';
  readonly #closer = new AbortController();
  #started = false;
  #lastEventId: string | undefined;
  /** The seq boundary: every message at or below it was delivered (or is before the stream); what a reconnection sends as `Last-Event-ID`. */
  #after = 0;
  #connections = 0;
  #response: ResponseInfo | null = null;

  /** Used by `inboxes.stream()`. */
  constructor(transport: Pick<Transport, 'streaming' | 'validate'>, inboxId: string, options: StreamOptions = {}, clock: Clock = systemClock) {
    this.inboxId = inboxId;
    this.#transport = transport;
    this.#options = options;
    this.#clock = clock;
    if (options.lastEventId !== undefined) {
      this.#lastEventId = String(options.lastEventId);
      const seq = Number(this.#lastEventId);
      if (Number.isSafeInteger(seq)) this.#after = seq;
    }
    void path`/inboxes/${inboxId}/stream`; // refuse an empty id now rather than on the first iteration
  }

  /** The id of the last message event received (what a reconnection resumes after). */
  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  /** The stream's health: see {@link StreamState}. */
  get state(): StreamState {
    return this.#state;
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

  /**
   * The stream's one loop, and the one judge of its health: connects,
   * reads, reconnects after a drop (resending `Last-Event-ID`), and gives up
   * (state `unavailable`, the loop throws) after too many failed attempts or
   * drops in a row, or at once on an answer retrying cannot help. A final
   * event (`inbox.deleted`, `inbox.expired`, `access.revoked`) ends it.
   */
  async *#run(): AsyncGenerator<InboxEvent, void, undefined> {
    const user = this.#options.signal;
    const onUserAbort = () => this.#closer.abort(user?.reason);
    user?.addEventListener('abort', onUserAbort, { once: true });
    const maxAttempts = this.#options.maxReconnectAttempts ?? 10;
    const maxDrops = this.#options.maxDrops ?? Number.POSITIVE_INFINITY;
    let retryMs = this.#options.reconnectDelayMs ?? DEFAULT_RECONNECT_MS;
    let failures = 0;
    let drops = 0;
    /** The next connection, opened when the server handed this one over, read ahead up to its `ready`. */
    let next: Promise<Reading> | null = null;
    this.#state = 'connecting';
    try {
      for (;;) {
        if (this.#stopped()) return;
        let failure: unknown;
        try {
          const reading = await (next ?? this.#open());
          next = null;
          failures = 0;
          const outcome = yield* this.#read(reading, (successor) => (next = successor));
          if (this.#options.reconnectDelayMs === undefined && outcome.retry !== null) retryMs = outcome.retry;
          if (outcome.kind === 'final' || this.#stopped()) return;
          if (outcome.kind === 'handed-over') continue;
          if (outcome.kind === 'dropped') {
            drops++;
            if (drops > maxDrops) this.#giveUp(new InboxkitError(`The stream of inbox ${this.inboxId} dropped ${drops} times; giving up (maxDrops ${maxDrops}).`));
            this.#state = 'reconnecting';
            // A hand-over's next connection is already on its way: no wait before it.
            this.#options.onLifecycle?.({ type: 'dropped', connection: reading.number, reconnectInMs: next ? 0 : retryMs });
            if (next === null && !(await this.#pause(retryMs))) return;
            continue;
          }
          failure = new InboxkitError(
            `The stream of inbox ${this.inboxId} sent no "ready" event within ${this.#options.readyTimeoutMs} ms of connecting (a proxy that buffers text/event-stream?).`,
          );
        } catch (err) {
          next = null;
          if (this.#stopped() || this.state === 'unavailable') throw err;
          failure = err;
        }
        failures++;
        if (!canReconnectAfter(failure) || failures > maxAttempts) this.#giveUp(failure);
        const delay =
          failure instanceof RateLimitError && failure.retryAfter !== null
            ? failure.retryAfter * 1000
            : Math.min(Math.max(retryMs, MAX_RECONNECT_MS), retryMs * 2 ** (failures - 1));
        this.#state = 'reconnecting';
        if (!(await this.#pause(delay))) return;
      }
    } finally {
      if (this.state !== 'unavailable') this.#state = 'ended';
      user?.removeEventListener('abort', onUserAbort);
      this.#closer.abort();
    }
  }

  /** Opens a connection (resending `Last-Event-ID`): its headers are in, its body not read yet. */
  async #open(): Promise<Reading> {
    const connection = new AbortController();
    const answer = await this.#connect(AbortSignal.any([this.#closer.signal, connection.signal]));
    this.#connections++;
    this.#options.onLifecycle?.({ type: 'connected', connection: this.#connections });
    return readingOf(this.#connections, answer, connection);
  }

  /**
   * The server hands the connection over (it drains): opens the next one now
   * and reads it ahead up to its `ready`, while this one still delivers; once
   * the next is live, this one is closed (`switched`) and the loop goes on
   * with the next, which starts with what it read ahead.
   */
  #handOver(current: Reading, switched: () => void): Promise<Reading> {
    this.#options.onLifecycle?.({ type: 'handover', connection: current.number });
    const { readyTimeoutMs = 0, idleTimeoutMs = 45_000 } = this.#options;
    const successor = this.#open().then((next) => readAhead(next, readyTimeoutMs > 0 ? readyTimeoutMs : idleTimeoutMs, this.#clock, `The stream of inbox ${this.inboxId}`));
    successor.then(
      () => {
        switched();
        current.connection.abort();
      },
      // A next connection that failed is left to the loop: it sees the error once this connection ends.
      () => undefined,
    );
    return successor;
  }

  /** Marks the stream unavailable, says so, and throws `error`. */
  #giveUp(error: unknown): never {
    this.#state = 'unavailable';
    this.#options.onLifecycle?.({ type: 'unavailable', error });
    throw error;
  }

  /**
   * Reads one connection until it ends: `final` after a final event or a
   * close, `dropped` when it broke or ended, `not-ready` when it sent no
   * `ready` within `readyTimeoutMs`, `handed-over` once the next connection
   * a `handover` event opened is live (given to `onSuccessor` at once).
   */
  async *#read(
    reading: Reading,
    onSuccessor: (next: Promise<Reading>) => void,
  ): AsyncGenerator<InboxEvent, { kind: 'final' | 'dropped' | 'not-ready' | 'handed-over'; retry: number | null }, undefined> {
    const { answer, connection, decoder } = reading;
    this.#response = answer.info;
    const idleMs = this.#options.idleTimeoutMs ?? 45_000;
    const readyMs = this.#options.readyTimeoutMs ?? 0;
    let notReady = false;
    let handedOver = false;
    let successor = false;
    let readyTimer: unknown =
      readyMs > 0
        ? this.#clock.setTimeout(() => {
            notReady = true;
            connection.abort(new Error(`no "ready" within ${readyMs} ms`));
          }, readyMs)
        : undefined;
    let idle: unknown;
    const armIdle = () => {
      if (idleMs <= 0) return;
      this.#clock.clearTimeout(idle);
      idle = this.#clock.setTimeout(() => connection.abort(new Error(`no data for ${idleMs} ms`)), idleMs);
    };
    try {
      armIdle();
      for (let raws = reading.ahead.splice(0); ; ) {
        for (const raw of raws) {
          if (raw.event === HANDOVER_EVENT && !successor) {
            successor = true;
            onSuccessor(this.#handOver(reading, () => (handedOver = true)));
            continue;
          }
          const event = this.#interpret(raw, answer);
          if (event === null) continue;
          if (event.type === 'ready') {
            this.#clock.clearTimeout(readyTimer);
            readyTimer = undefined;
            this.#state = 'live';
            this.#options.onLifecycle?.({ type: 'ready', connection: reading.number, lastSeq: event.lastSeq });
          }
          const final = event.type === 'inbox.deleted' || event.type === 'inbox.expired' || event.type === 'access.revoked';
          if (final) this.#state = 'ended';
          yield event;
          if (final) return { kind: 'final', retry: decoder.retry };
        }
        const chunk = await reading.chunks.next();
        if (chunk.done === true) break;
        armIdle();
        raws = decoder.push(chunk.value);
      }
    } catch (err) {
      if (this.#stopped()) return { kind: 'final', retry: decoder.retry };
      if (err instanceof InboxkitError && !handedOver) throw err;
      // Anything else is the connection breaking (or closed for the next one): the caller goes on.
    } finally {
      this.#clock.clearTimeout(idle);
      this.#clock.clearTimeout(readyTimer);
      answer.body.destroy();
    }
    return { kind: handedOver ? 'handed-over' : notReady ? 'not-ready' : 'dropped', retry: decoder.retry };
  }

  /** Waits before a reconnection; false when the stream was closed meanwhile. */
  async #pause(ms: number): Promise<boolean> {
    try {
      await sleep(ms, this.#closer.signal, 'The wait', this.#clock);
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
        if (message.seq <= this.#after) return null; // already delivered before a reconnection
        this.#after = message.seq;
        const id = raw.id ?? String(message.seq);
        this.#lastEventId = id;
        return { type: 'message', id, message, whole };
      }
      case 'ready': {
        const ready = this.#transport.validate(where, LooseStreamReady, this.#json(raw, answer));
        // Without a Last-Event-ID the server replays nothing: remember where "live" began,
        // so a reconnection replays what arrived while the connection was down.
        if (this.#lastEventId === undefined && ready.lastSeq > this.#after) {
          this.#after = ready.lastSeq;
          this.#lastEventId = String(ready.lastSeq);
        }
        return { type: 'ready', inboxId: ready.inboxId, lastSeq: ready.lastSeq };
      }
      case 'access.revoked': {
        const revoked = this.#transport.validate(where, LooseStreamAccessRevoked, this.#json(raw, answer));
        return { type: 'access.revoked', inboxId: revoked.inboxId, reason: revoked.reason };
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
