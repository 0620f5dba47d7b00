/**
 * The client's one sleep, and the `AbortError` it rejects with.
 */
import { AbortError } from '../core/errors.ts';
import { systemClock } from './clock.ts';
import type { Clock } from './clock.ts';

/** An `AbortError` for a signal that fired. */
export function abortErrorFor(signal: AbortSignal, what: string): AbortError {
  return new AbortError(`${what} was aborted by the caller's AbortSignal.`, { cause: signal.reason });
}

/** Waits `ms` on `clock`, or rejects with an `AbortError` when `signal` fires first. */
export function sleep(ms: number, signal?: AbortSignal, what = 'The wait', clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortErrorFor(signal, what));
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(abortErrorFor(signal as AbortSignal, what));
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Like {@link sleep}, but ends early without an error when `signal` fires. */
export function pause(ms: number, signal: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return sleep(ms, signal, 'The wait', clock).catch(() => undefined);
}
