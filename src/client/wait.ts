/**
 * The waits behind `inbox.waitForMessage()`, `waitForMessages()` and
 * `expectNoMessage()`: race-free (the backlog first, oldest first, then new
 * mail), pushed by the event stream, and polling the message list with backoff
 * when the stream is unavailable.
 *
 * @packageDocumentation
 */
import type { MessageSummary } from '../wire/schemas.ts';
import { AbortError, ApiError, InboxkitError, RateLimitError } from './errors.ts';
import { bodyMismatches, describeCriteria, needsFullMessage, summaryMismatches, toCriteria } from './criteria.ts';
import type { MessageCriteria, MessageMatch } from './criteria.ts';
import type { InboxHandle } from './inbox-handle.ts';
import { ReceivedMessage } from './received.ts';
import type { InboxStream } from './stream.ts';
import type { RateLimit } from './types.ts';
import { UnexpectedMessageError, WaitTimeoutError } from './wait-errors.ts';
import type { WaitMismatch } from './wait-errors.ts';

/** Options of `waitForMessage` and `waitForMessages`. */
export interface WaitOptions {
  /**
   * Milliseconds to wait before failing with a `WaitTimeoutError`; 0 waits until the signal aborts.
   * @defaultValue 30000
   */
  timeout?: number;
  /** Aborting ends the wait at once: it rejects with an `AbortError` whose `cause` is the signal's reason. */
  signal?: AbortSignal;
  /**
   * `'backlog'`: messages already in the inbox that no earlier wait of this handle returned count
   * (oldest first), then new ones; the wait may start before or after the mail is sent.
   * `'now'`: only messages that arrive after the wait has started listening count.
   * @defaultValue 'backlog'
   */
  since?: 'now' | 'backlog';
  /**
   * Delays between polls of the message list when the event stream is unavailable; the last
   * one repeats. Slowed down further when `X-RateLimit-Remaining` runs low, and `Retry-After` is honoured.
   * @defaultValue [100, 250, 500, 1000]
   */
  pollIntervals?: number[];
}

/** Options of `expectNoMessage`. */
export interface ExpectNoMessageOptions {
  /** Milliseconds during which no matching message may arrive. */
  within: number;
  /** Aborting ends the check at once: it rejects with an `AbortError`. */
  signal?: AbortSignal;
  /**
   * `'backlog'`: a matching message already in the inbox (not returned by an earlier wait of this
   * handle) fails the check too; `'now'`: only new ones count.
   * @defaultValue 'backlog'
   */
  since?: 'now' | 'backlog';
  /**
   * Polling delays when the stream is unavailable (see {@link WaitOptions.pollIntervals}).
   * @defaultValue [100, 250, 500, 1000]
   */
  pollIntervals?: number[];
}

/** Default timeout of a wait, in milliseconds. */
export const DEFAULT_WAIT_TIMEOUT = 30_000;
/** Default polling schedule (the last delay repeats), like Playwright's `expect.poll`. */
export const DEFAULT_POLL_INTERVALS: readonly number[] = [100, 250, 500, 1000];
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
/** How many non-matching messages a timeout error lists, and how many with their failed criteria. */
const LIST_ARRIVALS = 20;
const LIST_MISMATCHES = 5;

/**
 * What the waits of one inbox handle remember: which messages they returned
 * (each is returned once per handle) and the whole messages they read.
 * @internal
 */
export class WaitState {
  readonly #returned = new Set<string>();
  readonly #returnedSeqs = new Set<number>();
  readonly #fetched = new Map<string, ReceivedMessage>();
  #watermark = 0;

  /** Every message with a `seq` up to this was returned by a wait. */
  get watermark(): number {
    return this.#watermark;
  }

  /** How many messages the waits of this handle returned. */
  get returnedCount(): number {
    return this.#returned.size;
  }

  /** Whether a wait of this handle already returned the message. */
  returned(id: string): boolean {
    return this.#returned.has(id);
  }

  /** Marks a message as returned; false when another wait got it first. */
  claim(message: ReceivedMessage): boolean {
    if (this.#returned.has(message.id)) return false;
    this.#returned.add(message.id);
    this.#returnedSeqs.add(message.seq);
    while (this.#returnedSeqs.has(this.#watermark + 1)) this.#watermark++;
    return true;
  }

  /** A whole message read before. */
  cached(id: string): ReceivedMessage | undefined {
    return this.#fetched.get(id);
  }

  /** Remembers a whole message. */
  remember(message: ReceivedMessage): void {
    this.#fetched.set(message.id, message);
  }

  /** The whole messages read so far, in arrival order. */
  all(): ReceivedMessage[] {
    return [...this.#fetched.values()].sort((a, b) => a.seq - b.seq);
  }
}

/** One wait: what it looks for and how long. @internal */
export interface WaitSpec {
  /** Which call this is, for error messages. */
  call: string;
  match: MessageMatch | undefined;
  /** `collect`: resolve with `count` matches; `absent`: fail on the first match, resolve at the deadline. */
  mode: 'collect' | 'absent';
  count: number;
  /** Milliseconds; 0 = no deadline. */
  timeout: number;
  signal: AbortSignal | undefined;
  since: 'now' | 'backlog';
  pollIntervals: readonly number[];
}

function checkMs(value: unknown, name: string, call: string): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new InboxkitError(`${call}: ${name} must be a number of milliseconds ≥ 0; got ${value === undefined ? 'nothing' : JSON.stringify(value)}.`);
  }
  return value;
}

function checkSince(value: unknown, call: string): 'now' | 'backlog' {
  if (value === undefined) return 'backlog';
  if (value === 'now' || value === 'backlog') return value;
  throw new InboxkitError(`${call}: since must be 'now' or 'backlog'; got ${JSON.stringify(value)}.`);
}

function checkIntervals(value: unknown, call: string): readonly number[] {
  if (value === undefined) return DEFAULT_POLL_INTERVALS;
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
    throw new InboxkitError(`${call}: pollIntervals must be a non-empty array of milliseconds ≥ 0, e.g. [100, 250, 500, 1000]; got ${JSON.stringify(value)}.`);
  }
  return value as number[];
}

/** Builds the spec of `waitForMessage(s)`. @internal */
export function waitSpec(call: string, count: number, match: MessageMatch | undefined, options: WaitOptions = {}): WaitSpec {
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new InboxkitError(`${call}: count must be a whole number ≥ 1; got ${JSON.stringify(count)}.`);
  }
  return {
    call,
    match,
    mode: 'collect',
    count,
    timeout: options.timeout === undefined ? DEFAULT_WAIT_TIMEOUT : checkMs(options.timeout, 'timeout', call),
    signal: options.signal,
    since: checkSince(options.since, call),
    pollIntervals: checkIntervals(options.pollIntervals, call),
  };
}

/** Builds the spec of `expectNoMessage`. @internal */
export function absenceSpec(match: MessageMatch | undefined, options: ExpectNoMessageOptions): WaitSpec {
  const call = 'expectNoMessage';
  if (typeof options !== 'object' || options === null) {
    throw new InboxkitError(`${call}: give the window as options: expectNoMessage(criteria, { within: 2000 }).`);
  }
  const within = checkMs(options.within, 'within', call);
  if (within === 0) throw new InboxkitError(`${call}: within must be more than 0 ms (how long no matching message may arrive).`);
  return {
    call,
    match,
    mode: 'absent',
    count: 1,
    timeout: within,
    signal: options.signal,
    since: checkSince(options.since, call),
    pollIntervals: checkIntervals(options.pollIntervals, call),
  };
}

/** An interruptible delay; resolves early (without error) when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function isStop(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted && (error instanceof AbortError || (error instanceof Error && error.name === 'AbortError'));
}

/** A fatal answer while polling: the inbox or the credential is wrong, retrying cannot help. */
function isFatal(error: unknown): boolean {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

function clock(iso: string): string {
  const m = /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(iso);
  return m?.[1] ?? iso;
}

function who(summary: MessageSummary): string {
  if (summary.from === null) return '(no sender)';
  return summary.from.name ? `${summary.from.name} <${summary.from.address}>` : summary.from.address;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

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

/** A connection attempt to the inbox's event stream, watched for health. */
interface StreamAttempt {
  /** True once the current connection has sent `ready`. */
  readonly live: boolean;
  /** Resolves with why the stream ended (it was unavailable, dropped too often, or was closed). */
  readonly ended: Promise<string>;
  close(): void;
}

/**
 * Runs one wait. Resolves with the matches (`collect`) or nothing (`absent`).
 * @internal
 */
export function runWait(inbox: InboxHandle, state: WaitState, spec: WaitSpec): Promise<ReceivedMessage[]> {
  const criteria: MessageCriteria = toCriteria(spec.match, spec.call);
  const description = describeCriteria(spec.match);
  if (spec.signal?.aborted) {
    return Promise.reject(new AbortError(`${spec.call}(${description}) at ${inbox.address} was aborted by the caller's AbortSignal before it started.`, { cause: spec.signal.reason }));
  }

  return new Promise<ReceivedMessage[]>((resolve, reject) => {
    const stop = new AbortController(); // everything this wait started ends with it
    const feedStop = new AbortController(); // the stream and polls (ended first by `absent` at its deadline)
    const feedSignal = AbortSignal.any([stop.signal, feedStop.signal]);
    const started = Date.now();
    const matched: ReceivedMessage[] = [];
    const rejected: WaitMismatch[] = [];
    const queue: MessageSummary[] = [];
    const pushed = new Set<number>();
    let maxPushed = spec.since === 'backlog' ? state.watermark : 0;
    /** Messages with a seq up to this are not considered; `null` until known for `since: 'now'`. */
    let floor: number | null = spec.since === 'backlog' ? state.watermark : null;
    let polls = 0;
    let fallbackReason: string | null = null;
    let lastPollError: unknown = null;
    let settled = false;
    let deadline: ReturnType<typeof setTimeout> | undefined;

    const cleanup = () => {
      clearTimeout(deadline);
      spec.signal?.removeEventListener('abort', onAbort);
      stop.abort();
    };
    const succeed = (value: ReceivedMessage[]) => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve(value);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(error);
    };
    function onAbort(): void {
      fail(new AbortError(`${spec.call}(${description}) at ${inbox.address} was aborted by the caller's AbortSignal.`, { cause: spec.signal?.reason }));
    }
    spec.signal?.addEventListener('abort', onAbort, { once: true });

    // ---- considering messages, one at a time, in arrival order ----
    const consider = async (summary: MessageSummary): Promise<void> => {
      if (floor !== null && summary.seq <= floor) return;
      if (state.returned(summary.id)) return;
      const early = summaryMismatches(criteria, summary);
      if (early.length > 0) {
        rejected.push({ message: summary, failed: early });
        return;
      }
      let message = state.cached(summary.id);
      if (message === undefined) {
        try {
          message = new ReceivedMessage(inbox, await inbox.message(summary.id, { signal: stop.signal }));
        } catch (error) {
          if (error instanceof ApiError && error.status === 404) {
            rejected.push({ message: summary, failed: ['it was deleted before it could be read'] });
            return;
          }
          throw error;
        }
        state.remember(message);
      }
      if (needsFullMessage(criteria)) {
        const late = bodyMismatches(criteria, message);
        if (late.length > 0) {
          rejected.push({ message: summary, failed: late });
          return;
        }
        if (criteria.where !== undefined && !(await criteria.where(message))) {
          rejected.push({ message: summary, failed: ['the predicate returned false'] });
          return;
        }
      }
      if (settled) return;
      if (spec.mode === 'absent') {
        fail(
          new UnexpectedMessageError(
            `${spec.call}: expected no message matching ${description} at ${inbox.address} within ${spec.timeout} ms, but ${JSON.stringify(message.subject)} from ${who(summary)} arrived at ${message.receivedAt} (seq ${message.seq}, id ${message.id}).`,
            message,
            description,
          ),
        );
        return;
      }
      if (!state.claim(message)) return; // another wait of this handle got it first
      matched.push(message);
      if (matched.length >= spec.count) succeed(matched);
    };

    let pumping: Promise<void> | null = null;
    /** Works through the queue; the promise settles once it is empty. */
    const pump = (): Promise<void> => {
      if (pumping !== null) return pumping;
      let finished = false;
      const run = (async () => {
        try {
          while (queue.length > 0 && !settled) await consider(queue.shift() as MessageSummary);
        } catch (error) {
          if (!isStop(error, stop.signal)) fail(error);
        } finally {
          // Reset in the same turn as the loop's last check, so a push right after starts a new run.
          finished = true;
          pumping = null;
        }
      })();
      if (!finished) pumping = run;
      return run;
    };
    const push = (summaries: MessageSummary[]) => {
      for (const summary of summaries) {
        if (pushed.has(summary.seq)) continue;
        pushed.add(summary.seq);
        if (summary.seq > maxPushed) maxPushed = summary.seq;
        queue.push(summary);
      }
      if (queue.length > 0) void pump();
    };

    // ---- the event stream ----
    // A short wait cannot spend 2 s finding out that the stream is buffered: give it a third of its time.
    const readyTimeout = spec.timeout > 0 ? Math.min(READY_TIMEOUT_MS, Math.max(250, spec.timeout / 3)) : READY_TIMEOUT_MS;
    const openStream = (): StreamAttempt => {
      const lastEventId = spec.since === 'now' && floor === null ? undefined : Math.max(maxPushed, floor ?? 0);
      let stream: InboxStream;
      let readies = 0;
      let observed = 0;
      let changedAt = Date.now();
      let reason: string | null = null;
      let watchdog: ReturnType<typeof setInterval> | undefined;
      const close = () => {
        clearInterval(watchdog);
        stream?.close();
      };
      const ended = (async (): Promise<string> => {
        try {
          stream = inbox.stream({
            ...(lastEventId !== undefined ? { lastEventId } : {}),
            signal: feedSignal,
            maxReconnectAttempts: 0,
            reconnectDelayMs: RECONNECT_DELAY_MS,
          });
          watchdog = setInterval(() => {
            if (stream.connections !== observed) {
              observed = stream.connections;
              changedAt = Date.now();
            }
            if (stream.connections - 1 > MAX_STREAM_DROPS) {
              reason = `the stream dropped ${stream.connections - 1} times`;
              close();
            } else if ((observed === 0 || readies < observed) && Date.now() - changedAt > readyTimeout) {
              reason = `the stream sent no "ready" event within ${Math.round(readyTimeout)} ms (a proxy that buffers text/event-stream?)`;
              close();
            }
          }, 100);
          for await (const event of stream) {
            if (event.type === 'message') push([event.message]);
            else if (event.type === 'ready') {
              readies++;
              if (floor === null) {
                floor = event.lastSeq;
                if (event.lastSeq > maxPushed) maxPushed = event.lastSeq;
              }
            } else {
              fail(new InboxkitError(`${spec.call}(${description}): inbox ${inbox.address} was ${event.type === 'inbox.expired' ? 'expired' : 'deleted'} while waiting.`));
              return 'the inbox is gone';
            }
          }
          return reason ?? 'the stream ended';
        } catch (error) {
          if (isStop(error, stop.signal) || stop.signal.aborted) return 'the wait ended';
          if (reason !== null) return reason;
          return `the stream failed: ${error instanceof Error ? error.message : String(error)}`;
        } finally {
          clearInterval(watchdog);
        }
      })();
      return {
        get live() {
          return stream !== undefined && readies > 0 && readies >= stream.connections;
        },
        ended,
        close,
      };
    };

    // ---- polling the message list ----
    let lastRateLimit: RateLimit | null = null;
    /**
     * Reads what is newer than what was pushed. Says whether it found something, and how long
     * the server asked to wait (`Retry-After`) when it refused.
     */
    const poll = async (signal: AbortSignal): Promise<{ found: boolean; retryAfterMs: number | null }> => {
      polls++;
      const threshold = floor === null ? null : Math.max(maxPushed, floor);
      const found: MessageSummary[] = [];
      let newest = 0;
      try {
        let page = await inbox.messages({ limit: POLL_PAGE, signal, retry: false });
        for (;;) {
          lastRateLimit = page.rateLimit;
          let done = false;
          for (const item of page.items) {
            newest = Math.max(newest, item.seq);
            if (threshold === null) {
              done = true;
              break;
            }
            if (item.seq <= threshold) {
              done = true;
              break;
            }
            found.push(item);
          }
          if (done) break;
          const next = await page.nextPage();
          if (next === null) break;
          page = next;
        }
        lastPollError = null;
      } catch (error) {
        if (!(isStop(error, signal) || signal.aborted)) {
          if (isFatal(error)) fail(error);
          else lastPollError = error;
        }
        const retryAfterMs = error instanceof RateLimitError && error.retryAfter !== null ? error.retryAfter * 1000 : null;
        return { found: false, retryAfterMs };
      }
      if (threshold === null) {
        floor = newest;
        maxPushed = Math.max(maxPushed, newest);
      }
      found.sort((a, b) => a.seq - b.seq);
      push(found);
      return { found: found.length > 0, retryAfterMs: null };
    };

    // ---- the feed: stream first, polling while it is unavailable ----
    const feed = async () => {
      let live: StreamAttempt = openStream();
      for (;;) {
        const why = await live.ended;
        if (feedSignal.aborted || settled) return;
        fallbackReason = why;
        let attempt: StreamAttempt | null = null;
        let retryAt = Date.now() + STREAM_RETRY_MS;
        let index = 0;
        let attemptEnded = false;
        for (;;) {
          if (feedSignal.aborted || settled) {
            attempt?.close();
            return;
          }
          const current: StreamAttempt | null = attempt;
          if (current !== null && current.live) {
            live = current;
            break;
          }
          if (current !== null && attemptEnded) {
            attempt = null;
            retryAt = Date.now() + STREAM_RETRY_MS;
          }
          if (attempt === null && Date.now() >= retryAt) {
            const next = openStream();
            attempt = next;
            attemptEnded = false;
            void next.ended.then((why2) => {
              if (attempt === next) {
                attemptEnded = true;
                fallbackReason = why2;
              }
            });
          }
          const { found, retryAfterMs } = await poll(feedSignal);
          if (found) index = 0; // mail is coming in: look again soon
          const delay = retryAfterMs ?? pollDelay(spec.pollIntervals, index++, lastRateLimit);
          await pause(delay, feedSignal);
        }
        fallbackReason = null;
      }
    };

    // ---- the deadline ----
    const explainTimeout = (): WaitTimeoutError => {
      const elapsed = Date.now() - started;
      const arrived = rejected.map((r) => r.message);
      const lines: string[] = [];
      const wanted = spec.count === 1 ? 'a message' : `${spec.count} messages`;
      lines.push(`${spec.call} timed out after ${spec.timeout} ms waiting for ${wanted} matching ${description} at ${inbox.address}.`);
      if (spec.count > 1) lines.push(`Found ${matched.length} of ${spec.count}: ${matched.map((m) => JSON.stringify(m.subject)).join(', ') || 'none'}.`);
      const newest = rejected.slice(-LIST_MISMATCHES);
      if (arrived.length === 0) {
        const what = spec.since === 'now' ? 'since the wait started' : 'that an earlier wait had not returned';
        lines.push(`No ${matched.length > 0 ? 'other ' : ''}message arrived ${what} (${Math.round(elapsed / 100) / 10} s).`);
        lines.push(`Check that the application sent the mail to exactly ${inbox.address}, and that its SMTP host and port point at this inbox service (not a real mail server or another instance).`);
      } else {
        lines.push(`${plural(arrived.length, 'message')} arrived that did not match${arrived.length > LIST_ARRIVALS ? ` (the newest ${LIST_ARRIVALS} shown)` : ''}:`);
        for (const r of rejected.slice(-LIST_ARRIVALS)) {
          const because = newest.includes(r) ? `: ${r.failed.join('; ')}` : '';
          lines.push(`  - ${clock(r.message.receivedAt)} from ${who(r.message)} ${JSON.stringify(r.message.subject)}${because}`);
        }
      }
      if (spec.since === 'now' && floor !== null && floor > 0) {
        lines.push(`Messages already in the inbox when the wait started (seq ≤ ${floor}) were ignored (since: 'now').`);
      }
      if (state.returnedCount > 0) {
        lines.push(`${plural(state.returnedCount, 'message')} already returned by earlier waits on this inbox handle ${state.returnedCount === 1 ? 'was' : 'were'} not considered again (each message is returned once per handle).`);
      }
      if (fallbackReason !== null) lines.push(`The event stream was unavailable (${fallbackReason}); the message list was polled ${plural(polls, 'time')}.`);
      if (lastPollError instanceof Error) lines.push(`The last poll failed: ${lastPollError.message}`);
      return new WaitTimeoutError(lines.join('\n'), {
        criteria: description,
        address: inbox.address,
        timeout: spec.timeout,
        received: arrived,
        mismatches: newest.reverse(),
        matched: [...matched],
        wanted: spec.count,
      });
    };

    const onDeadline = async () => {
      if (settled) return;
      if (spec.mode === 'collect') {
        fail(explainTimeout());
        return;
      }
      // `absent`: one last look at the list catches what the stream had not pushed yet.
      feedStop.abort();
      if (floor !== null) await poll(stop.signal);
      await pump();
      succeed([]);
    };

    if (spec.timeout > 0 && Number.isFinite(spec.timeout)) {
      deadline = setTimeout(() => void onDeadline().catch(fail), spec.timeout);
    }
    void feed().catch((error: unknown) => {
      if (!isStop(error, stop.signal)) fail(error);
    });
  });
}
