/**
 * The rate-limit aggregate of a SQLite store. A SQLite store serves one
 * process, so its windows live in that process's memory (a counter written to a
 * database file would cost a sync per request); they go with the store.
 *
 * @packageDocumentation
 */
import type { RateLimitStore } from '../contract/types.ts';

/**
 * Fixed-window counters in memory, per store. Once `maxKeys` keys are tracked,
 * windows that have ended are pruned before a new key is added.
 */
export function createSqliteRateLimits(maxKeys = 10_000): RateLimitStore {
  const windows = new Map<string, { windowStart: number; count: number; windowMs: number }>();
  const prune = (now: number) => {
    for (const [key, w] of windows) if (now - w.windowStart >= w.windowMs) windows.delete(key);
  };
  return {
    async hitRateLimit(key, windowMs, now) {
      let w = windows.get(key);
      if (!w || now - w.windowStart >= windowMs) {
        if (!w && windows.size >= maxKeys) prune(now);
        w = { windowStart: now, count: 0, windowMs };
        windows.set(key, w);
      }
      w.count += 1;
      return { count: w.count, windowStart: w.windowStart };
    },
  };
}
