/**
 * Fixed-window rate limiting, per key (a credential, or a client address for
 * anonymous calls). The windows are counted by the store (`hitRateLimit`), so
 * every node on one database shares them; this module turns a count into a decision.
 *
 * @packageDocumentation
 */
import type { RateLimitStore } from '../storage/contract/types.ts';

/** The outcome of one request against its allowance. */
export interface RateLimitDecision {
  /** Whether the request may proceed. */
  allowed: boolean;
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window (0 once exhausted). */
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/** A rate limiter: counts a hit for a key and says whether it is allowed. */
export interface RateLimiter {
  /** Counts one request for `key` against `limit` per window, at time `now` (epoch ms). */
  hit(key: string, limit: number, now: number): Promise<RateLimitDecision>;
}

/**
 * Creates a fixed-window limiter counting in `counter` (a store).
 *
 * @param windowSeconds - Length of a window.
 * @example
 * ```ts
 * const limiter = createRateLimiter(store, 60);
 * await limiter.hit('ip:127.0.0.1', 100, Date.now()); // { allowed: true, limit: 100, remaining: 99, resetSeconds: 60 }
 * ```
 */
export function createRateLimiter(counter: RateLimitStore, windowSeconds: number): RateLimiter {
  const windowMs = windowSeconds * 1000;
  return {
    async hit(key, limit, now) {
      const { count, windowStart } = await counter.hitRateLimit(key, windowMs, now);
      const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
    },
  };
}

/**
 * The rate-limit headers of a decision (`Retry-After` only when refused).
 * With rate limiting off (`null`), the headers are still sent, each `0`: no
 * allowance applies and no window is running. A real window always has at
 * least 1 s to go, so `X-RateLimit-Reset: 0` is never sent while a limit applies.
 */
export function rateLimitHeaders(d: RateLimitDecision | null): Record<string, string> {
  if (d === null) return { ...RATE_LIMIT_OFF };
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.resetSeconds),
  };
  if (!d.allowed) headers['Retry-After'] = String(d.resetSeconds);
  return headers;
}

/** What the rate-limit headers say when rate limiting is off (`--rate-limit off`). */
export const RATE_LIMIT_OFF: Readonly<Record<string, string>> = Object.freeze({
  'X-RateLimit-Limit': '0',
  'X-RateLimit-Remaining': '0',
  'X-RateLimit-Reset': '0',
});
