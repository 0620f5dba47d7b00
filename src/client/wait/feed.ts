/**
 * {@link MessageFeed}: the messages of an inbox, each once and oldest first,
 * as a wait needs them: pushed by the event stream, and read from the message
 * list with backoff while the stream is unavailable (no such endpoint, a
 * buffering proxy, repeated drops). The stream's lifecycle events say when it
 * is live, dropped or gone; the feed never inspects it on a timer.
 *
 * @packageDocumentation
 */
import type { Message, MessageSummary } from '../../wire/schemas.ts';
import { ApiError, AbortError, RateLimitError } from '../errors.ts';
import { pause } from '../internal/sleep.ts';
import type { InboxStream, StreamLifecycleEvent } from '../stream.ts';
import type { RateLimit } from '../types.ts';
import type { WaitSource } from './source.ts';

/** A stream connection that has sent no `ready` after this long is taken as unavailable (a buffering proxy). */
const READY_TIMEOUT_MS = 2000;
/** Drops (reconnections) tolerated in one wait before it falls back to polling. */
const MAX_STREAM_DROPS = 3;
/** While polling, how often to try the stream again. */
const STREAM_RETRY_MS = 5000;
/** Delay before reconnecting a dropped stream (the stream then replays what was missed). */
const RECONNECT_DELAY_MS = 250;
/** Page size of the polls. */
const POLL_PAGE = 50;

/** The delay after a poll: the schedule, stretched when the rate limit runs low. */
export function pollDelay(intervals: readonly number[], index: number, rateLimit: RateLimit | null): number {
  const base = intervals[Math.min(index, intervals.length - 1)] ?? 1000;
  if (!rateLimit || rateLimit.remaining === null) return base;
  const limit = rateLimit.limit ?? 60;
  const low = Math.max(3, Math.ceil(limit * 0.1));
  if (rateLimit.remaining > low) return base;
  // Spread what is left of the window over the time until it resets.
  const resetMs = (rateLimit.reset ?? 60) * 1000;
  return Math.max(base, Math.ceil(resetMs / Math.max(1, rateLimit.remaining)));
}

/** Where the feed's messages go. @internal */
interface FeedSink {
  /** New summaries, oldest first; each message is delivered once. */
  deliver(summaries: MessageSummary[]): void;
  /** A whole message the stream pushed, handed over just before its summary is delivered. */
  pushedWhole(message: Message): void;
  /** The inbox was deleted or expired. */
  gone(kind: 'inbox.deleted' | 'inbox.expired'): void;
  /** A failure retrying cannot help (the inbox or the credential is wrong). */
  fatal(error: unknown): void;
}

/** How a feed starts. @internal */
interface FeedOptions {
  /** `backlog`: deliver what is newer than `startAfter`; `now`: only what arrives from now on. */
  since: 'now' | 'backlog';
  /** With `backlog`: the `seq` after which messages are delivered. */
  startAfter: number;
  /** How long a connection may take to send `ready` before the stream counts as unavailable. */
  readyTimeoutMs: number;
  /** The polling schedule; the last delay repeats. */
  pollIntervals: readonly number[];
}

/** How the feed fared, for a timeout's explanation. @internal */
interface FeedReport {
  /** Why the stream was unavailable, `null` while it was live. */
  fallbackReason: string | null;
  /** How many times the message list was polled. */
  polls: number;
  /** The error of the last poll, `null` when it succeeded. */
  lastPollError: unknown;
}

/** The ready timeout of a wait of `timeout` ms: a short wait cannot spend 2 s finding out the stream is buffered. */
export function readyTimeoutFor(timeout: number): number {
  return timeout > 0 ? Math.min(READY_TIMEOUT_MS, Math.max(250, timeout / 3)) : READY_TIMEOUT_MS;
}

function isStop(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted && (error instanceof AbortError || (error instanceof Error && error.name === 'AbortError'));
}

/** A fatal answer while polling: the inbox or the credential is wrong, retrying cannot help. */
function isFatal(error: unknown): boolean {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

/** What a stream attempt hands on. */
interface AttemptHandlers {
  message(summary: MessageSummary, whole: Message | null): void;
  ready(lastSeq: number): void;
  gone(kind: 'inbox.deleted' | 'inbox.expired'): void;
}

/** One stream connection attempt (with its own reconnections), judged healthy by its lifecycle events. */
class StreamAttempt {
  /** Resolves with why the stream ended (unavailable, dropped too often, gone, or closed). */
  readonly ended: Promise<string>;
  readonly #wentLive = new AbortController();
  readonly #readyTimeoutMs: number;
  #stream: InboxStream | undefined;
  #reason: string | null = null;
  #live = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(source: WaitSource, lastEventId: number | undefined, signal: AbortSignal, readyTimeoutMs: number, handlers: AttemptHandlers) {
    this.#readyTimeoutMs = readyTimeoutMs;
    this.ended = this.#follow(source, lastEventId, signal, handlers);
  }

  /** True while the current connection has sent `ready`. */
  get live(): boolean {
    return this.#live;
  }

  /** Aborts when the stream first goes live. */
  get wentLive(): AbortSignal {
    return this.#wentLive.signal;
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#stream?.close();
  }

  #giveUp(reason: string): void {
    this.#reason = reason;
    this.close();
  }

  #armReadyTimer(): void {
    clearTimeout(this.#timer);
    const ms = this.#readyTimeoutMs;
    this.#timer = setTimeout(() => this.#giveUp(`the stream sent no "ready" event within ${Math.round(ms)} ms (a proxy that buffers text/event-stream?)`), ms);
  }

  #onLifecycle = (event: StreamLifecycleEvent): void => {
    if (event.type === 'connected') {
      this.#live = false;
      if (event.connection - 1 > MAX_STREAM_DROPS) this.#giveUp(`the stream dropped ${event.connection - 1} times`);
      else this.#armReadyTimer();
    } else if (event.type === 'ready') {
      clearTimeout(this.#timer);
      this.#live = true;
      this.#wentLive.abort();
    } else if (event.type === 'dropped') {
      clearTimeout(this.#timer);
      this.#live = false;
    }
  };

  async #follow(source: WaitSource, lastEventId: number | undefined, signal: AbortSignal, handlers: AttemptHandlers): Promise<string> {
    try {
      this.#stream = source.stream({
        ...(lastEventId !== undefined ? { lastEventId } : {}),
        signal,
        includeMessage: true,
        maxReconnectAttempts: 0,
        reconnectDelayMs: RECONNECT_DELAY_MS,
        onLifecycle: this.#onLifecycle,
      });
      this.#armReadyTimer(); // the first connection may never come
      for await (const event of this.#stream) {
        if (event.type === 'message') handlers.message(event.message, event.whole);
        else if (event.type === 'ready') handlers.ready(event.lastSeq);
        else {
          handlers.gone(event.type);
          return 'the inbox is gone';
        }
      }
      return this.#reason ?? 'the stream ended';
    } catch (error) {
      if (isStop(error, signal) || signal.aborted) return 'the wait ended';
      if (this.#reason !== null) return this.#reason;
      return `the stream failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      clearTimeout(this.#timer);
    }
  }
}

/**
 * The messages of one inbox for one wait: the stream first, polling while it
 * is unavailable, and the stream again every few seconds.
 * @internal
 */
export class MessageFeed {
  readonly #source: WaitSource;
  readonly #options: FeedOptions;
  readonly #sink: FeedSink;
  readonly #pushed = new Set<number>();
  #maxPushed: number;
  /** Messages with a seq up to this are not delivered; `null` until known for `since: 'now'`. */
  #floor: number | null;
  #polls = 0;
  #fallbackReason: string | null = null;
  #lastPollError: unknown = null;
  #lastRateLimit: RateLimit | null = null;

  constructor(source: WaitSource, options: FeedOptions, sink: FeedSink) {
    this.#source = source;
    this.#options = options;
    this.#sink = sink;
    this.#maxPushed = options.since === 'backlog' ? options.startAfter : 0;
    this.#floor = options.since === 'backlog' ? options.startAfter : null;
  }

  /** Messages with a `seq` up to this are before the wait; `null` while unknown (`since: 'now'`). */
  get floor(): number | null {
    return this.#floor;
  }

  /** How the feed fared so far. */
  report(): FeedReport {
    return { fallbackReason: this.#fallbackReason, polls: this.#polls, lastPollError: this.#lastPollError };
  }

  /** Runs until `signal` aborts. Failures that end the wait go to the sink's `fatal`. */
  start(signal: AbortSignal): void {
    void this.#run(signal).catch((error: unknown) => {
      if (!isStop(error, signal)) this.#sink.fatal(error);
    });
  }

  /** One more look at the list (what the stream may not have pushed yet), once the floor is known. */
  async finalLook(signal: AbortSignal): Promise<void> {
    if (this.#floor !== null) await this.#poll(signal);
  }

  #push(summaries: MessageSummary[]): void {
    const fresh: MessageSummary[] = [];
    for (const summary of summaries) {
      if (this.#pushed.has(summary.seq)) continue;
      this.#pushed.add(summary.seq);
      if (summary.seq > this.#maxPushed) this.#maxPushed = summary.seq;
      fresh.push(summary);
    }
    if (fresh.length > 0) this.#sink.deliver(fresh);
  }

  #openStream(signal: AbortSignal): StreamAttempt {
    const lastEventId = this.#options.since === 'now' && this.#floor === null ? undefined : Math.max(this.#maxPushed, this.#floor ?? 0);
    return new StreamAttempt(this.#source, lastEventId, signal, this.#options.readyTimeoutMs, {
      message: (summary, whole) => {
        if (whole !== null && !this.#pushed.has(summary.seq)) this.#sink.pushedWhole(whole);
        this.#push([summary]);
      },
      ready: (lastSeq) => {
        if (this.#floor !== null) return;
        this.#floor = lastSeq;
        if (lastSeq > this.#maxPushed) this.#maxPushed = lastSeq;
      },
      gone: (kind) => this.#sink.gone(kind),
    });
  }

  async #run(signal: AbortSignal): Promise<void> {
    let live = this.#openStream(signal);
    for (;;) {
      const why = await live.ended;
      if (signal.aborted) return;
      this.#fallbackReason = why;
      const next = await this.#pollUntilLive(signal);
      if (next === null) return;
      live = next;
      this.#fallbackReason = null;
    }
  }

  /** Polls with backoff, trying the stream again every few seconds; returns the attempt that went live. */
  async #pollUntilLive(signal: AbortSignal): Promise<StreamAttempt | null> {
    let attempt: StreamAttempt | null = null;
    let attemptEnded = false;
    let retryAt = Date.now() + STREAM_RETRY_MS;
    let index = 0;
    for (;;) {
      if (signal.aborted) {
        attempt?.close();
        return null;
      }
      if (attempt?.live) return attempt;
      if (attempt !== null && attemptEnded) {
        attempt = null;
        retryAt = Date.now() + STREAM_RETRY_MS;
      }
      if (attempt === null && Date.now() >= retryAt) {
        const next = (attempt = this.#openStream(signal));
        attemptEnded = false;
        void next.ended.then((why) => {
          if (attempt !== next) return;
          attemptEnded = true;
          this.#fallbackReason = why;
        });
      }
      const { found, retryAfterMs } = await this.#poll(signal);
      if (found) index = 0; // mail is coming in: look again soon
      const delay = retryAfterMs ?? pollDelay(this.#options.pollIntervals, index++, this.#lastRateLimit);
      // A stream that goes live ends the pause: no need to poll once more.
      await pause(delay, attempt === null ? signal : AbortSignal.any([signal, attempt.wentLive]));
    }
  }

  /**
   * Reads what is newer than what was delivered. Says whether it found something, and how long
   * the server asked to wait (`Retry-After`) when it refused.
   */
  async #poll(signal: AbortSignal): Promise<{ found: boolean; retryAfterMs: number | null }> {
    this.#polls++;
    const threshold = this.#floor === null ? null : Math.max(this.#maxPushed, this.#floor);
    let read: { found: MessageSummary[]; newest: number };
    try {
      read = await this.#readNewerThan(threshold, signal);
      this.#lastPollError = null;
    } catch (error) {
      if (!(isStop(error, signal) || signal.aborted)) {
        if (isFatal(error)) this.#sink.fatal(error);
        else this.#lastPollError = error;
      }
      const retryAfterMs = error instanceof RateLimitError && error.retryAfter !== null ? error.retryAfter * 1000 : null;
      return { found: false, retryAfterMs };
    }
    if (threshold === null) {
      this.#floor = read.newest;
      this.#maxPushed = Math.max(this.#maxPushed, read.newest);
    }
    read.found.sort((a, b) => a.seq - b.seq);
    this.#push(read.found);
    return { found: read.found.length > 0, retryAfterMs: null };
  }

  /** The list's messages with a `seq` above `threshold` (none when it is `null`: only the newest `seq` is wanted). */
  async #readNewerThan(threshold: number | null, signal: AbortSignal): Promise<{ found: MessageSummary[]; newest: number }> {
    const found: MessageSummary[] = [];
    let newest = 0;
    let page = await this.#source.messages({ limit: POLL_PAGE, signal, retry: false });
    for (;;) {
      this.#lastRateLimit = page.rateLimit;
      for (const item of page.items) {
        newest = Math.max(newest, item.seq);
        if (threshold === null || item.seq <= threshold) return { found, newest };
        found.push(item);
      }
      const next = await page.nextPage();
      if (next === null) return { found, newest };
      page = next;
    }
  }
}
