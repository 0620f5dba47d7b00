/**
 * Reading `api_keys` rows into {@link ApiKeyRecord}s, the same for both
 * dialects; and the short id an operator names a key by.
 *
 * @packageDocumentation
 */
import { num, numberOrNull, text, textOrNull } from './rows.ts';
import type { Row } from './rows.ts';
import type { ApiKeyCaps, ApiKeyRecord } from './types.ts';

/** Hex digits of the key's hash in its id: enough to never collide in one database, far too few to find the key. */
const ID_HASH_DIGITS = 12;

/**
 * The id of an API key: `key_` and the first hex digits of its hash. Not a
 * secret (the hash of a random key tells nothing of the key), and stable, so
 * `inboxkit keys list` shows it and `keys revoke --id` takes it.
 */
export function apiKeyIdOf(keyHash: string): string {
  return `key_${keyHash.slice(0, ID_HASH_DIGITS)}`;
}

/** The caps of an `api_keys` row; a cap left NULL is absent (the service's default applies). */
export function capsOfRow(row: Row): ApiKeyCaps {
  const caps: ApiKeyCaps = {};
  const maxInboxes = numberOrNull(row.max_inboxes);
  const requestsPerMinute = numberOrNull(row.requests_per_minute);
  const maxStreams = numberOrNull(row.max_streams);
  if (maxInboxes !== null) caps.maxInboxes = maxInboxes;
  if (requestsPerMinute !== null) caps.requestsPerMinute = requestsPerMinute;
  if (maxStreams !== null) caps.maxStreams = maxStreams;
  return caps;
}

/**
 * An `api_keys` row joined with its user's email (`user_email`) as a record.
 *
 * @param flag - The dialect's boolean reader (SQLite stores 0/1).
 */
export function toApiKey(row: Row, flag: (value: unknown) => boolean): ApiKeyRecord {
  const keyHash = text(row.key_hash);
  return {
    id: apiKeyIdOf(keyHash),
    keyHash,
    userId: text(row.user_id),
    userEmail: text(row.user_email),
    label: textOrNull(row.label),
    caps: capsOfRow(row),
    configured: flag(row.configured),
    createdAt: num(row.created_at),
    lastUsedAt: numberOrNull(row.last_used_at),
    revokedAt: numberOrNull(row.revoked_at),
  };
}

/** The columns `toApiKey` reads, for `SELECT … FROM api_keys k JOIN users u ON u.id = k.user_id`. */
export const API_KEY_COLUMNS =
  'k.key_hash, k.user_id, u.email AS user_email, k.label, k.max_inboxes, k.requests_per_minute, k.max_streams, k.configured, k.created_at, k.last_used_at, k.revoked_at';
