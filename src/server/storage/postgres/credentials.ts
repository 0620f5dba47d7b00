/**
 * The credentials aggregate on PostgreSQL (twin of `../sqlite/credentials.ts`):
 * users, API keys, sessions and connect codes. A connect code is spent under its
 * row lock, so it is single use across nodes.
 *
 * @packageDocumentation
 */
import { API_KEY_COLUMNS, toApiKey } from '../contract/api-key-rows.ts';
import { newId } from '../contract/ids.ts';
import type { CredentialStore, UserRecord } from '../contract/types.ts';
import { flag, mapRow, num, rowMapper, text, textOrNull } from './database.ts';
import type { PgSql } from './database.ts';

const toUser = rowMapper<UserRecord>({ id: text, email: text, planId: text, createdAt: num });

/** The credential queries of a PostgreSQL store; creation times come from the store's clock. */
export function createPostgresCredentials(sql: PgSql): CredentialStore {
  return {
    ...apiKeyQueries(sql),
    async createUser({ email, planId }) {
      const user: UserRecord = { id: newId('usr'), email, planId, createdAt: sql.now() };
      await sql.run('INSERT INTO users (id, email, plan_id, created_at) VALUES ($1, $2, $3, $4)', user.id, email, planId, user.createdAt);
      return user;
    },
    async findUserById(id) {
      return mapRow(await sql.get('SELECT * FROM users WHERE id = $1', id), toUser);
    },
    async findUserByEmail(email) {
      return mapRow(await sql.get('SELECT * FROM users WHERE lower(email) = lower($1)', email), toUser);
    },
    async addSession({ tokenHash, userId, expiresAt, codeHash, parentKeyHash = null }) {
      await sql.run(
        'INSERT INTO sessions (token_hash, user_id, expires_at, code_hash, parent_key_hash) VALUES ($1, $2, $3, $4, $5)',
        tokenHash, userId, expiresAt, codeHash, parentKeyHash,
      );
    },
    async findSession(tokenHash) {
      const row = await sql.get('SELECT user_id, expires_at, revoked, parent_key_hash FROM sessions WHERE token_hash = $1', tokenHash);
      return row ? { userId: String(row.user_id), expiresAt: Number(row.expires_at), revoked: flag(row.revoked), parentKeyHash: textOrNull(row.parent_key_hash) } : null;
    },
    async revokeSession(tokenHash) {
      return (await sql.run('UPDATE sessions SET revoked = true WHERE token_hash = $1 AND NOT revoked', tokenHash)).changes > 0;
    },
    async revokeSessionsByCode(codeHash) {
      return (await sql.run('UPDATE sessions SET revoked = true WHERE code_hash = $1 AND NOT revoked', codeHash)).changes;
    },
    async addConnectCode({ codeHash, userId, challenge, redirectUri, expiresAt, keyHash = null }) {
      await sql.run(
        'INSERT INTO connect_codes (code_hash, user_id, challenge, redirect_uri, expires_at, key_hash) VALUES ($1, $2, $3, $4, $5, $6)',
        codeHash, userId, challenge, redirectUri, expiresAt, keyHash,
      );
    },
    async spendConnectCode(codeHash) {
      // FOR UPDATE: a second spender (on any node) waits for the first to commit,
      // then reads the row as the first left it (used).
      const row = await sql.get(
        `UPDATE connect_codes c SET used = true
           FROM (SELECT code_hash, used FROM connect_codes WHERE code_hash = $1 FOR UPDATE) before
          WHERE c.code_hash = before.code_hash
          RETURNING c.user_id, c.challenge, c.redirect_uri, c.expires_at, c.key_hash, before.used`,
        codeHash,
      );
      if (!row) return null;
      return {
        userId: String(row.user_id),
        challenge: String(row.challenge),
        redirectUri: String(row.redirect_uri),
        expiresAt: Number(row.expires_at),
        used: flag(row.used),
        keyHash: row.key_hash == null ? null : String(row.key_hash),
      };
    },
  };
}

/** The API-key queries: keys are kept, with the time, once revoked. */
function apiKeyQueries(sql: PgSql): Pick<CredentialStore, 'addApiKey' | 'removeConfiguredApiKeysExcept' | 'revokeApiKey' | 'findUserByApiKeyHash' | 'findApiKey' | 'listApiKeys' | 'touchApiKey'> {
  return {
    async addApiKey(userId, keyHash, options = {}) {
      const { caps = {} } = options;
      // A key added again after it was revoked starts over; a key that works stays as it is.
      await sql.run(
        `INSERT INTO api_keys (key_hash, user_id, created_at, configured, label, max_inboxes, requests_per_minute, max_streams)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (key_hash) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = EXCLUDED.created_at, configured = EXCLUDED.configured,
           label = EXCLUDED.label, max_inboxes = EXCLUDED.max_inboxes, requests_per_minute = EXCLUDED.requests_per_minute,
           max_streams = EXCLUDED.max_streams, last_used_at = NULL, revoked_at = NULL
         WHERE api_keys.revoked_at IS NOT NULL`,
        keyHash, userId, sql.now(), options.configured === true, options.label ?? null, caps.maxInboxes ?? null, caps.requestsPerMinute ?? null, caps.maxStreams ?? null,
      );
    },
    async removeConfiguredApiKeysExcept(keyHashes) {
      const gone = await sql.all('DELETE FROM api_keys WHERE configured AND NOT (key_hash = ANY($1::text[])) RETURNING key_hash', keyHashes);
      if (gone.length > 0) {
        await sql.run('UPDATE sessions SET revoked = true WHERE parent_key_hash = ANY($1::text[]) AND NOT revoked', gone.map((r) => String(r.key_hash)));
      }
      return gone.length;
    },
    async revokeApiKey(keyHash) {
      // One statement: the key and the sessions issued under it end together.
      const row = await sql.get(
        `WITH gone AS (UPDATE api_keys SET revoked_at = $2 WHERE key_hash = $1 AND revoked_at IS NULL RETURNING user_id),
              ended AS (UPDATE sessions SET revoked = true WHERE parent_key_hash = $1 AND NOT revoked AND EXISTS (SELECT 1 FROM gone))
         SELECT user_id FROM gone`,
        keyHash, sql.now(),
      );
      return row ? { userId: String(row.user_id) } : null;
    },
    async findUserByApiKeyHash(keyHash) {
      return mapRow(await sql.get('SELECT u.* FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL', keyHash), toUser);
    },
    async findApiKey(keyHash) {
      const row = await sql.get(
        `SELECT ${API_KEY_COLUMNS}, u.plan_id, u.created_at AS user_created_at FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        keyHash,
      );
      if (!row) return null;
      const key = toApiKey(row, flag);
      return { key, user: { id: key.userId, email: key.userEmail, planId: String(row.plan_id), createdAt: Number(row.user_created_at) } };
    },
    async listApiKeys() {
      return (await sql.all(`SELECT ${API_KEY_COLUMNS} FROM api_keys k JOIN users u ON u.id = k.user_id ORDER BY k.created_at, k.key_hash`)).map((row) => toApiKey(row, flag));
    },
    async touchApiKey(keyHash, now) {
      await sql.run('UPDATE api_keys SET last_used_at = $2 WHERE key_hash = $1', keyHash, now);
    },
  };
}
