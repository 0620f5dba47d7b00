/**
 * The retry decision: a pure function of the request's method, what went wrong,
 * how many retries were made and the policy. Tested with a table.
 */

/** A resolved retry policy (every field set). */
export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

/** The defaults of `RetryOptions`. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxRetries: 2,
  baseDelayMs: 300,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
});

/** What happened on the attempt. */
export type AttemptOutcome =
  | { kind: 'connection' }
  | { kind: 'timeout' }
  | { kind: 'status'; status: number; retryAfter?: string | null };

/** Input of {@link decideRetry}. */
interface RetryInput {
  method: string;
  outcome: AttemptOutcome;
  /** Retries already made (0 after the first attempt). */
  retriesDone: number;
  /** `null` when retries are disabled. */
  policy: RetryPolicy | null;
  /** A number in [0, 1) for the jitter. */
  random: number;
  /** Now, in ms since the epoch (for an HTTP-date `Retry-After`). */
  now: number;
}

/** The decision: retry after `delayMs`, or not, and why. */
type RetryDecision = { retry: true; delayMs: number; reason: string } | { retry: false; reason: string };

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const RETRYABLE_STATUS = new Set([408, 409, 429]);

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds; `null` when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** Exponential backoff with jitter: between half and all of `base * 2^retriesDone`, capped. */
export function backoffDelay(policy: RetryPolicy, retriesDone: number, random: number): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retriesDone);
  return Math.round(exp / 2 + (exp / 2) * random);
}

/** Decides whether an attempt is retried, and after how long. */
export function decideRetry(input: RetryInput): RetryDecision {
  const { policy, outcome } = input;
  if (policy === null) return { retry: false, reason: 'retries are disabled' };
  const method = input.method.toUpperCase();
  // A 503 with Retry-After is the service saying it did not do the request (its database
  // was unreachable, or it is draining): retrying is what it asks for, whatever the method.
  const refusedUndone = outcome.kind === 'status' && outcome.status === 503 && outcome.retryAfter != null;
  if (!IDEMPOTENT.has(method) && !refusedUndone) return { retry: false, reason: `${method} is not idempotent` };
  if (input.retriesDone >= policy.maxRetries) return { retry: false, reason: `${policy.maxRetries} retries made` };
  if (outcome.kind === 'connection' || outcome.kind === 'timeout') {
    return { retry: true, delayMs: backoffDelay(policy, input.retriesDone, input.random), reason: outcome.kind };
  }
  const { status } = outcome;
  if (!RETRYABLE_STATUS.has(status) && status < 500) return { retry: false, reason: `status ${status} is not retryable` };
  const retryAfterMs = parseRetryAfter(outcome.retryAfter, input.now);
  if (retryAfterMs !== null) {
    if (retryAfterMs > policy.maxRetryAfterMs) {
      return { retry: false, reason: `Retry-After of ${retryAfterMs} ms exceeds the bound of ${policy.maxRetryAfterMs} ms` };
    }
    return { retry: true, delayMs: retryAfterMs, reason: `status ${status}, Retry-After` };
  }
  return { retry: true, delayMs: backoffDelay(policy, input.retriesDone, input.random), reason: `status ${status}` };
}
