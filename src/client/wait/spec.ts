/**
 * What a wait is asked to do: the public options of the waits, and the checked
 * {@link WaitSpec} the runner works from.
 *
 * @packageDocumentation
 */
import { InboxkitError } from '../core/errors.ts';
import type { MessageMatch } from '../message/criteria.ts';

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

/** Options of `peek`. */
export interface PeekOptions {
  /**
   * Milliseconds to keep looking for a matching message that arrives later; 0 looks only at
   * what is in the inbox now.
   * @defaultValue 0
   */
  within?: number;
  /** Aborting ends the look-up at once: it rejects with an `AbortError`. */
  signal?: AbortSignal;
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

/**
 * One wait: what it looks for and how long.
 * - `collect`: resolve with `count` matches, each claimed (returned once per handle).
 * - `absent`: fail on the first match, resolve at the deadline.
 * - `peek`: resolve with the first match without claiming it (or with none at the deadline);
 *   messages earlier waits returned count too.
 * @internal
 */
export interface WaitSpec {
  /** Which call this is, for error messages. */
  call: string;
  match: MessageMatch | undefined;
  mode: 'collect' | 'absent' | 'peek';
  count: number;
  /** Milliseconds; 0 = no deadline (except for `peek`, where 0 means "look once"). */
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

/** Builds the spec of `peek`. @internal */
export function peekSpec(match: MessageMatch | undefined, options: PeekOptions = {}): WaitSpec {
  const call = 'peek';
  if (typeof options !== 'object' || options === null) {
    throw new InboxkitError(`${call}: options must be an object, e.g. peek(criteria, { within: 2000 }); got ${JSON.stringify(options)}.`);
  }
  return {
    call,
    match,
    mode: 'peek',
    count: 1,
    timeout: options.within === undefined ? 0 : checkMs(options.within, 'within', call),
    signal: options.signal,
    since: 'backlog',
    pollIntervals: checkIntervals(options.pollIntervals, call),
  };
}
