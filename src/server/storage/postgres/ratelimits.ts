/**
 * The rate-limit aggregate on PostgreSQL: one row per key in an UNLOGGED table,
 * counted by a single upsert, so every node shares each window exactly. Ended
 * windows are deleted by the expiry sweep.
 *
 * @packageDocumentation
 */
import type { RateLimitStore } from '../contract/types.ts';
import type { Sql } from './database.ts';

/** The rate-limit queries of a PostgreSQL store. */
export function createPostgresRateLimits(sql: Sql): RateLimitStore {
  return {
    async hitRateLimit(key, windowMs, now) {
      const row = await sql.get(
        `INSERT INTO rate_limits AS r (key, window_start, window_end, count) VALUES ($1, $2::bigint, $2::bigint + $3::bigint, 1)
         ON CONFLICT (key) DO UPDATE SET
           window_start = CASE WHEN r.window_end <= $2 THEN $2 ELSE r.window_start END,
           window_end   = CASE WHEN r.window_end <= $2 THEN $2::bigint + $3::bigint ELSE r.window_end END,
           count        = CASE WHEN r.window_end <= $2 THEN 1 ELSE r.count + 1 END
         RETURNING window_start, count`,
        key, now, windowMs,
      );
      return { count: Number(row?.count ?? 1), windowStart: Number(row?.window_start ?? now) };
    },
  };
}

/** Deletes the windows that have ended. */
export async function pruneRateLimits(sql: Sql, now: number): Promise<void> {
  await sql.run('DELETE FROM rate_limits WHERE window_end <= $1', now);
}
