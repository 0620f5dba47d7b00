/**
 * The client's clock: the time and the timers the stream and the waits use,
 * injected so that a test can run them on fake time.
 *
 * @packageDocumentation
 */

/** The time and one-shot timers. @internal */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Calls `callback` once after `ms`; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
