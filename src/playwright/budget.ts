/**
 * How long a wait may take when the test gives no timeout: the test's remaining
 * time budget, minus a reserve so that the wait fails (with a message naming
 * what it waited for) before the test's own timeout does.
 *
 * @packageDocumentation
 */

/** The bound used when neither the test nor the options set any timeout (the test runs with `timeout: 0`). */
export const UNBOUNDED_WAIT_MS = 10 * 60_000;

/** The smallest wait the budget ever gives (a wait that already ran out of budget still gets to look once). */
export const MIN_WAIT_MS = 250;

/** What the default wait timeout is computed from. */
interface WaitBudgetInput {
  /** The test's timeout in milliseconds (`testInfo.timeout`); 0 means the test has none. */
  testTimeout: number;
  /** Milliseconds since the test started. */
  elapsed: number;
  /** The configured `waitTimeout` option; `undefined` for "the remaining budget", 0 for "no limit of its own". */
  waitTimeout?: number | undefined;
}

/**
 * The part of the test's timeout kept back from a wait: 10 % of the test's
 * timeout, at least 500 ms and at most 5 s.
 */
export function teardownReserve(testTimeout: number): number {
  if (testTimeout <= 0) return 0;
  return Math.min(5_000, Math.max(500, Math.round(testTimeout * 0.1)));
}

/**
 * The timeout of a wait that was given none: the smaller of the `waitTimeout`
 * option and the test's remaining budget minus {@link teardownReserve}; a large
 * bound ({@link UNBOUNDED_WAIT_MS}) when neither limits it; never less than
 * {@link MIN_WAIT_MS}.
 *
 * @example
 * ```ts
 * defaultWaitTimeout({ testTimeout: 30_000, elapsed: 4_000 }); // 23_000 (30 s − 4 s − 3 s reserve)
 * ```
 */
export function defaultWaitTimeout(input: WaitBudgetInput): number {
  const remaining = input.testTimeout > 0 ? input.testTimeout - input.elapsed - teardownReserve(input.testTimeout) : Infinity;
  const own = input.waitTimeout !== undefined && input.waitTimeout > 0 ? input.waitTimeout : Infinity;
  const bound = Math.min(remaining, own);
  if (bound === Infinity) return UNBOUNDED_WAIT_MS;
  return Math.max(MIN_WAIT_MS, Math.floor(bound));
}
