/**
 * Idempotency keys on SQLite: a claim reads, inserts and trims in one write
 * transaction, so two requests (or two services on one file) never both hold a key.
 *
 * @packageDocumentation
 */
import type { IdempotencyKeyStore } from '../contract/types.ts';
import { IDEMPOTENCY_EXPIRE, IDEMPOTENCY_TRIM_OWNER, IDEMPOTENCY_TRIM_TOTAL, seenOf } from '../contract/idempotency-rows.ts';
import type { Sql } from './database.ts';

/** The idempotency key queries of a SQLite store. */
export function createSqliteIdempotency(sql: Sql): IdempotencyKeyStore {
  return {
    async claimIdempotencyKey(ref, bodyHash, now, bounds) {
      return sql.transaction(() => {
        sql.run(IDEMPOTENCY_EXPIRE('?'), now - bounds.ttlMs);
        const row = sql.get('SELECT body_hash, answer FROM idempotency_keys WHERE owner_key = ? AND idem_key = ?', ref.owner, ref.key);
        if (row) return seenOf(row);
        sql.run('INSERT INTO idempotency_keys (owner_key, idem_key, body_hash, answer, created_at) VALUES (?, ?, ?, NULL, ?)', ref.owner, ref.key, bodyHash, now);
        sql.run(IDEMPOTENCY_TRIM_OWNER('?', '?', '?'), ref.owner, ref.owner, bounds.perOwner);
        sql.run(IDEMPOTENCY_TRIM_TOTAL('?'), bounds.total - 1);
        return { kind: 'new' as const };
      });
    },
    async settleIdempotencyKey(ref, answer) {
      sql.run('UPDATE idempotency_keys SET answer = ? WHERE owner_key = ? AND idem_key = ?', answer, ref.owner, ref.key);
    },
    async forgetIdempotencyKey(ref) {
      sql.run('DELETE FROM idempotency_keys WHERE owner_key = ? AND idem_key = ?', ref.owner, ref.key);
    },
  };
}
