/**
 * The credentials aggregate on SQLite: users, their API keys, sessions and
 * connect codes. Every secret arrives already hashed; nothing here sees one in clear.
 *
 * @packageDocumentation
 */
import { API_KEY_COLUMNS, toApiKey } from '../contract/api-key-rows.ts';
import type { CredentialStore, UserRecord } from '../contract/types.ts';
import { flag, mapRow, newId, num, rowMapper, text, textOrNull } from './database.ts';
import type { Sql } from './database.ts';

const toUser = rowMapper<UserRecord>({ id: text, email: text, planId: text, createdAt: num });

/** The credential queries of a SQLite store; creation times come from the store's clock. */
export function createSqliteCredentials(sql: Sql): CredentialStore {
  return {
    ...apiKeyQueries(sql),
    async createUser({ email, planId }) {
      const user: UserRecord = { id: newId('usr'), email, planId, createdAt: sql.now() };
      sql.run('INSERT INTO users (id, email, plan_id, created_at) VALUES (?, ?, ?, ?)', user.id, email, planId, user.createdAt);
      return user;
    },
    async findUserById(id) {
      return mapRow(sql.get('SELECT * FROM users WHERE id = ?', id), toUser);
    },
    async findUserByEmail(email) {
      return mapRow(sql.get('SELECT * FROM users WHERE email = ? COLLATE NOCASE', email), toUser);
    },
    async addSession({ tokenHash, userId, expiresAt, codeHash, parentKeyHash = null }) {
      sql.run(
        'INSERT INTO sessions (token_hash, user_id, expires_at, code_hash, parent_key_hash) VALUES (?, ?, ?, ?, ?)',
        tokenHash, userId, expiresAt, codeHash, parentKeyHash,
      );
    },
    async findSession(tokenHash) {
      const row = sql.get('SELECT user_id, expires_at, revoked, parent_key_hash FROM sessions WHERE token_hash = ?', tokenHash);
      return row ? { userId: String(row.user_id), expiresAt: Number(row.expires_at), revoked: flag(row.revoked), parentKeyHash: textOrNull(row.parent_key_hash) } : null;
    },
    async revokeSession(tokenHash) {
      return Number(sql.run('UPDATE sessions SET revoked = 1 WHERE token_hash = ? AND revoked = 0', tokenHash).changes) > 0;
    },
    async revokeSessionsByCode(codeHash) {
      return Number(sql.run('UPDATE sessions SET revoked = 1 WHERE code_hash = ? AND revoked = 0', codeHash).changes);
    },
    async addConnectCode({ codeHash, userId, challenge, redirectUri, expiresAt, keyHash = null }) {
      sql.run(
        'INSERT INTO connect_codes (code_hash, user_id, challenge, redirect_uri, expires_at, key_hash) VALUES (?, ?, ?, ?, ?, ?)',
        codeHash, userId, challenge, redirectUri, expiresAt, keyHash,
      );
    },
    async spendConnectCode(codeHash) {
      return sql.transaction(() => {
        const row = sql.get('SELECT user_id, challenge, redirect_uri, expires_at, used, key_hash FROM connect_codes WHERE code_hash = ?', codeHash);
        if (!row) return null;
        sql.run('UPDATE connect_codes SET used = 1 WHERE code_hash = ?', codeHash);
        return {
          userId: String(row.user_id),
          challenge: String(row.challenge),
          redirectUri: String(row.redirect_uri),
          expiresAt: Number(row.expires_at),
          used: flag(row.used),
          keyHash: row.key_hash == null ? null : String(row.key_hash),
        };
      });
    },
  };
}

/** The API-key queries: keys are kept, with the time, once revoked. */
function apiKeyQueries(sql: Sql): Pick<CredentialStore, 'addApiKey' | 'removeConfiguredApiKeysExcept' | 'revokeApiKey' | 'findUserByApiKeyHash' | 'findApiKey' | 'listApiKeys' | 'touchApiKey'> {
  return {
    async addApiKey(userId, keyHash, options = {}) {
      const { caps = {} } = options;
      // A key added again after it was revoked starts over; a key that works stays as it is.
      sql.run(
        `INSERT INTO api_keys (key_hash, user_id, created_at, configured, label, max_inboxes, requests_per_minute, max_streams)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (key_hash) DO UPDATE SET user_id = excluded.user_id, created_at = excluded.created_at, configured = excluded.configured,
           label = excluded.label, max_inboxes = excluded.max_inboxes, requests_per_minute = excluded.requests_per_minute,
           max_streams = excluded.max_streams, last_used_at = NULL, revoked_at = NULL
         WHERE api_keys.revoked_at IS NOT NULL`,
        keyHash, userId, sql.now(), options.configured ? 1 : 0, options.label ?? null, caps.maxInboxes ?? null, caps.requestsPerMinute ?? null, caps.maxStreams ?? null,
      );
    },
    async removeConfiguredApiKeysExcept(keyHashes) {
      return sql.transaction(() => {
        const keep = new Set(keyHashes);
        let removed = 0;
        for (const row of sql.all('SELECT key_hash FROM api_keys WHERE configured = 1')) {
          if (keep.has(String(row.key_hash))) continue;
          removed += Number(sql.run('DELETE FROM api_keys WHERE key_hash = ?', String(row.key_hash)).changes);
          sql.run('UPDATE sessions SET revoked = 1 WHERE parent_key_hash = ? AND revoked = 0', String(row.key_hash));
        }
        return removed;
      });
    },
    async revokeApiKey(keyHash) {
      return sql.transaction(() => {
        const row = sql.get('SELECT user_id FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL', keyHash);
        if (!row) return null;
        sql.run('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?', sql.now(), keyHash);
        sql.run('UPDATE sessions SET revoked = 1 WHERE parent_key_hash = ? AND revoked = 0', keyHash);
        return { userId: String(row.user_id) };
      });
    },
    async findUserByApiKeyHash(keyHash) {
      return mapRow(sql.get('SELECT u.* FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ? AND k.revoked_at IS NULL', keyHash), toUser);
    },
    async findApiKey(keyHash) {
      const row = sql.get(`SELECT ${API_KEY_COLUMNS}, u.plan_id, u.created_at AS user_created_at FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ? AND k.revoked_at IS NULL`, keyHash);
      if (!row) return null;
      const key = toApiKey(row, flag);
      return { key, user: { id: key.userId, email: key.userEmail, planId: String(row.plan_id), createdAt: Number(row.user_created_at) } };
    },
    async listApiKeys() {
      return sql.all(`SELECT ${API_KEY_COLUMNS} FROM api_keys k JOIN users u ON u.id = k.user_id ORDER BY k.created_at, k.key_hash`).map((row) => toApiKey(row, flag));
    },
    async touchApiKey(keyHash, now) {
      sql.run('UPDATE api_keys SET last_used_at = ? WHERE key_hash = ?', now, keyHash);
    },
  };
}
