/**
 * The idempotency key statements both backends share; placeholders are
 * given by the backend (`?`, `$1`).
 *
 * @packageDocumentation
 */
import type { IdempotencyClaim } from './provider-state-types.ts';
import { text, textOrNull } from './rows.ts';
import type { Row } from './rows.ts';

/** Removes the keys created at or before a time (now − ttl). */
export const IDEMPOTENCY_EXPIRE = (before: string) => `DELETE FROM idempotency_keys WHERE created_at <= ${before}`;

/** Removes an owner's keys beyond its newest `limit` (owner, owner, limit). */
export const IDEMPOTENCY_TRIM_OWNER = (owner: string, ownerAgain: string, limit: string) =>
  `DELETE FROM idempotency_keys WHERE owner_key = ${owner} AND idem_key NOT IN (SELECT idem_key FROM idempotency_keys WHERE owner_key = ${ownerAgain} ORDER BY created_at DESC, idem_key DESC LIMIT ${limit})`;

/** Removes the keys older than the store's newest `total` (the offset is total − 1). */
export const IDEMPOTENCY_TRIM_TOTAL = (offset: string) =>
  `DELETE FROM idempotency_keys WHERE created_at < (SELECT created_at FROM idempotency_keys ORDER BY created_at DESC LIMIT 1 OFFSET ${offset})`;

/** What a claim found in an existing row. */
export function seenOf(row: Row): IdempotencyClaim {
  return { kind: 'seen', bodyHash: text(row.body_hash), answer: textOrNull(row.answer) };
}
