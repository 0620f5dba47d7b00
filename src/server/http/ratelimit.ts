/**
 * Fixed-window rate limiting, per key (a credential, or a client address for
 * anonymous calls). In memory; one limiter per server.
 *
 * @packageDocumentation
 */

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
  hit(key: string, limit: number, now: number): RateLimitDecision;
}

/**
 * Creates a fixed-window limiter.
 *
 * @param windowSeconds - Length of a window.
 * @param maxKeys - Keys tracked before expired windows are pruned.
 * @example
 * ```ts
 * const limiter = createRateLimiter(60);
 * limiter.hit('ip:127.0.0.1', 100, Date.now()); // { allowed: true, limit: 100, remaining: 99, resetSeconds: 60 }
 * ```
 */
export function createRateLimiter(windowSeconds: number, maxKeys = 10_000): RateLimiter {
  const windowMs = windowSeconds * 1000;
  const windows = new Map<string, { start: number; count: number }>();

  function prune(now: number): void {
    for (const [key, w] of windows) if (now - w.start >= windowMs) windows.delete(key);
  }

  return {
    hit(key, limit, now) {
      let w = windows.get(key);
      if (!w || now - w.start >= windowMs) {
        if (!w && windows.size >= maxKeys) prune(now);
        w = { start: now, count: 0 };
        windows.set(key, w);
      }
      w.count += 1;
      const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000));
      return { allowed: w.count <= limit, limit, remaining: Math.max(0, limit - w.count), resetSeconds };
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
