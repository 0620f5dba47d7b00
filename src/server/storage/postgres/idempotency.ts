/**
 * Idempotency keys on PostgreSQL: a claim inserts unless the key is there
 * (its primary key decides between racing nodes), then trims, in one transaction.
 *
 * @packageDocumentation
 */
import type { IdempotencyKeyStore } from '../contract/types.ts';
import { IDEMPOTENCY_EXPIRE, IDEMPOTENCY_TRIM_OWNER, IDEMPOTENCY_TRIM_TOTAL, seenOf } from '../contract/idempotency-rows.ts';
import type { PgSql } from './database.ts';

/** The idempotency key queries of a PostgreSQL store. */
export function createPostgresIdempotency(sql: PgSql): IdempotencyKeyStore {
  return {
    async claimIdempotencyKey(ref, bodyHash, now, bounds) {
      return sql.transaction(async (tx) => {
        await tx.run(IDEMPOTENCY_EXPIRE('$1'), now - bounds.ttlMs);
        const inserted = await tx.run('INSERT INTO idempotency_keys (owner_key, idem_key, body_hash, answer, created_at) VALUES ($1, $2, $3, NULL, $4) ON CONFLICT (owner_key, idem_key) DO NOTHING', ref.owner, ref.key, bodyHash, now);
        if (inserted.changes === 0) {
          const row = await tx.get('SELECT body_hash, answer FROM idempotency_keys WHERE owner_key = $1 AND idem_key = $2', ref.owner, ref.key);
          if (row) return seenOf(row);
        }
        await tx.run(IDEMPOTENCY_TRIM_OWNER('$1', '$1', '$2'), ref.owner, bounds.perOwner);
        await tx.run(IDEMPOTENCY_TRIM_TOTAL('$1'), bounds.total - 1);
        return { kind: 'new' as const };
      });
    },
    async settleIdempotencyKey(ref, answer) {
      await sql.run('UPDATE idempotency_keys SET answer = $1 WHERE owner_key = $2 AND idem_key = $3', answer, ref.owner, ref.key);
    },
    async forgetIdempotencyKey(ref) {
      await sql.run('DELETE FROM idempotency_keys WHERE owner_key = $1 AND idem_key = $2', ref.owner, ref.key);
    },
  };
}
