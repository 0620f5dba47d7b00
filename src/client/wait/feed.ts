/**
 * {@link MessageFeed}: the messages of an inbox, each once and oldest first,
 * as a wait needs them: pushed by the event stream, and read from the message
 * list with backoff while the stream is unavailable (no such endpoint, a
 * buffering proxy, repeated drops). The stream judges its own health, and
 * the feed reads it through one state (`InboxStream.state`) and one event
 * (the lifecycle's `ready`), only to choose between the stream and polling.
 *
 * @packageDocumentation
 */
import type { Message, MessageSummary } from '../../wire/schemas.ts';
import { ApiError, AbortError, RateLimitError } from '../core/errors.ts';
import { pause } from '../internal/sleep.ts';
import type { InboxAccessRevokedEvent, InboxGoneEvent, InboxStream } from '../stream/stream.ts';
import type { RateLimit } from '../core/types.ts';
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
  /** The stream ended for good: the inbox was deleted or expired, or access to it was revoked. */
  ended(event: InboxGoneEvent | InboxAccessRevokedEvent): void;
  /** A failure retrying cannot help (the inbox or the credential is wrong). */
  fatal(error: unknown): void;
}

/** How a feed starts. @internal */
interface FeedOptions {
  /** `backlog`: deliver what is newer than `after`; `now`: only what arrives from now on. */
  since: 'now' | 'backlog';
  /** With `backlog`: the seq boundary the wait starts after. */
  after: number;
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

/** One stream opened by the feed: it ends with why it stopped (null: for good, or the wait ended). */
interface StreamRun {
  stream: InboxStream;
  ended: Promise<string | null>;
  /** Aborts when the stream first goes live. */
  wentLive: AbortSignal;
}

/**
 * The messages of one inbox for one wait: the stream first, polling while it
 * is unavailable, and the stream again every few seconds.
 *
 * The seq boundary is called `after` everywhere: every message with a seq at
 * or below it is behind the wait (there before it started, or delivered).
 * It is what a reconnection sends as `Last-Event-ID` and what a poll reads
 * above. `startedAfter` is where the wait itself began.
 * @internal
 */
export class MessageFeed {
  readonly #source: WaitSource;
  readonly #options: FeedOptions;
  readonly #sink: FeedSink;
  readonly #delivered = new Set<number>();
  #after: number;
  #startedAfter: number | null;
  #polls = 0;
  #fallbackReason: string | null = null;
  #lastPollError: unknown = null;
  #lastRateLimit: RateLimit | null = null;

  constructor(source: WaitSource, options: FeedOptions, sink: FeedSink) {
    this.#source = source;
    this.#options = options;
    this.#sink = sink;
    this.#after = options.since === 'backlog' ? options.after : 0;
    this.#startedAfter = options.since === 'backlog' ? options.after : null;
  }

  /** Messages with a `seq` up to this were there before the wait; `null` while unknown (`since: 'now'`). */
  get startedAfter(): number | null {
    return this.#startedAfter;
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

  /** One more look at the list (what the stream may not have pushed yet), once the boundary is known. */
  async finalLook(signal: AbortSignal): Promise<void> {
    if (this.#startedAfter !== null) await this.#poll(signal);
  }

  #push(summaries: MessageSummary[]): void {
    const fresh: MessageSummary[] = [];
    for (const summary of summaries) {
      if (this.#delivered.has(summary.seq)) continue;
      this.#delivered.add(summary.seq);
      this.#after = Math.max(this.#after, summary.seq);
      fresh.push(summary);
    }
    if (fresh.length > 0) this.#sink.deliver(fresh);
  }

  /** The boundary is known now (`ready`, or the first poll, of a wait `since: 'now'`). */
  #learnStart(seq: number): void {
    if (this.#startedAfter !== null) return;
    this.#startedAfter = seq;
    this.#after = Math.max(this.#after, seq);
  }

  #openStream(signal: AbortSignal): StreamRun {
    const wentLive = new AbortController();
    const stream = this.#source.stream({
      ...(this.#startedAfter !== null ? { lastEventId: this.#after } : {}),
      signal,
      includeMessage: true,
      // The stream judges its health by these; the feed polls once it gives up.
      maxReconnectAttempts: 0,
      maxDrops: MAX_STREAM_DROPS,
      readyTimeoutMs: this.#options.readyTimeoutMs,
      timeout: this.#options.readyTimeoutMs,
      reconnectDelayMs: RECONNECT_DELAY_MS,
      // The stream's health reaches the feed through one event (this one) and one state
      // (`stream.state`); the loop below reads only the messages and the final event.
      onLifecycle: (event) => {
        if (event.type !== 'ready') return;
        this.#learnStart(event.lastSeq);
        wentLive.abort();
      },
    });
    const ended = (async (): Promise<string | null> => {
      try {
        for await (const event of stream) {
          if (event.type === 'message') {
            if (event.whole !== null && !this.#delivered.has(event.message.seq)) this.#sink.pushedWhole(event.whole);
            this.#push([event.message]);
          } else if (event.type !== 'ready') {
            this.#sink.ended(event);
            return null;
          }
        }
        return signal.aborted ? null : 'the stream ended';
      } catch (error) {
        if (isStop(error, signal) || signal.aborted) return null;
        return `the stream failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    })();
    return { stream, ended, wentLive: wentLive.signal };
  }

  async #run(signal: AbortSignal): Promise<void> {
    let live = this.#openStream(signal);
    for (;;) {
      const why = await live.ended;
      if (signal.aborted || why === null) return;
      this.#fallbackReason = why;
      const next = await this.#pollUntilLive(signal);
      if (next === null) return;
      live = next;
      this.#fallbackReason = null;
    }
  }

  /** Polls with backoff, trying the stream again every few seconds; returns the stream that went live. */
  async #pollUntilLive(signal: AbortSignal): Promise<StreamRun | null> {
    const clock = this.#source.clock;
    let attempt: StreamRun | null = null;
    let attemptEnded = false;
    let retryAt = clock.now() + STREAM_RETRY_MS;
    let index = 0;
    for (;;) {
      if (signal.aborted) {
        attempt?.stream.close();
        return null;
      }
      if (attempt?.stream.state === 'live') return attempt;
      if (attempt !== null && attemptEnded) {
        attempt = null;
        retryAt = clock.now() + STREAM_RETRY_MS;
      }
      if (attempt === null && clock.now() >= retryAt) {
        const next = (attempt = this.#openStream(signal));
        attemptEnded = false;
        void next.ended.then((why) => {
          if (attempt !== next) return;
          attemptEnded = true;
          if (why !== null) this.#fallbackReason = why;
        });
      }
      const { found, retryAfterMs } = await this.#poll(signal);
      if (found) index = 0; // mail is coming in: look again soon
      const delay = retryAfterMs ?? pollDelay(this.#options.pollIntervals, index++, this.#lastRateLimit);
      // A stream that goes live ends the pause: no need to poll once more.
      await pause(delay, attempt === null ? signal : AbortSignal.any([signal, attempt.wentLive]), clock);
    }
  }

  /**
   * Reads what is above the boundary. Says whether it found something, and how long
   * the server asked to wait (`Retry-After`) when it refused.
   */
  async #poll(signal: AbortSignal): Promise<{ found: boolean; retryAfterMs: number | null }> {
    this.#polls++;
    const after = this.#startedAfter === null ? null : this.#after;
    let read: { found: MessageSummary[]; newest: number };
    try {
      read = await this.#readAbove(after, signal);
      this.#lastPollError = null;
    } catch (error) {
      if (!(isStop(error, signal) || signal.aborted)) {
        if (isFatal(error)) this.#sink.fatal(error);
        else this.#lastPollError = error;
      }
      const retryAfterMs = error instanceof RateLimitError && error.retryAfter !== null ? error.retryAfter * 1000 : null;
      return { found: false, retryAfterMs };
    }
    if (after === null) this.#learnStart(read.newest);
    read.found.sort((a, b) => a.seq - b.seq);
    this.#push(read.found);
    return { found: read.found.length > 0, retryAfterMs: null };
  }

  /** The list's messages with a `seq` above `after` (none when it is `null`: only the newest `seq` is wanted). */
  async #readAbove(after: number | null, signal: AbortSignal): Promise<{ found: MessageSummary[]; newest: number }> {
    const found: MessageSummary[] = [];
    let newest = 0;
    let page = await this.#source.messages({ limit: POLL_PAGE, signal, retry: false });
    for (;;) {
      this.#lastRateLimit = page.rateLimit;
      for (const item of page.items) {
        newest = Math.max(newest, item.seq);
        if (after === null || item.seq <= after) return { found, newest };
        found.push(item);
      }
      const next = await page.nextPage();
      if (next === null) return { found, newest };
      page = next;
    }
  }
}
