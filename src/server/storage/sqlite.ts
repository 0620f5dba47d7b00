/**
 * The SQLite store, on Node's built-in `node:sqlite` (no native addon).
 *
 * In memory by default; with a file path, the database runs in WAL mode with
 * `synchronous=FULL`: every commit is fsynced to the WAL before it returns, so a
 * message acknowledged with SMTP 250 survives a SIGKILL of the server and also a
 * power cut or kernel crash (NORMAL would already survive SIGKILL, since the WAL
 * write reaches the OS before the commit returns, but not a power cut; one fsync
 * per received message is cheap next to an SMTP round trip).
 *
 * Migrations are the numbered `.sql` files in `./migrations/`, applied in order
 * at open, each in a transaction that also bumps `PRAGMA user_version`.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { newId } from '../auth/secrets.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import type {
  AddressRecord,
  AttachmentRecord,
  DomainRecord,
  InboxRecord,
  MessageRecord,
  MessageSummaryRecord,
  RecordPage,
  Store,
  UserRecord,
} from './types.ts';

/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * Database file; created when missing. Omit (or `null`, or `':memory:'`) for an in-memory database.
   * @defaultValue `null`
   */
  path?: string | null;
  /**
   * Folder of the numbered `.sql` migrations.
   * @defaultValue the `migrations` folder next to this module
   */
  migrationsDir?: URL | string;
}

type Row = Record<string, SQLInputValue | undefined>;

const INBOX_COLUMNS = `i.id, i.local_part, i.domain_id, d.domain, i.owner_user_id, i.label, i.forward_to, i.created_at,
  i.expires_at, i.token_hash, i.message_count, i.last_seq, i.n`;
const SUMMARY_COLUMNS = `id, inbox_id, seq, from_json, to_json, cc_json, subject, preview, received_at, size, has_attachments`;

/** Applies the numbered migrations the database has not seen yet. */
function migrate(db: DatabaseSync, dir: URL | string): void {
  const files = readdirSync(dir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
  const current = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
  for (const file of files) {
    const version = Number.parseInt(file, 10);
    if (version <= current) continue;
    const sql = readFileSync(typeof dir === 'string' ? `${dir}/${file}` : new URL(file, dir), 'utf8');
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(sql);
      db.exec(`PRAGMA user_version = ${version}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw new Error(`inboxkit: migration ${file} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

function toDomain(row: Row): DomainRecord {
  return { id: String(row.id), domain: String(row.domain), isDefault: row.is_default === 1 };
}

function toUser(row: Row): UserRecord {
  return { id: String(row.id), email: String(row.email), planId: String(row.plan_id), createdAt: Number(row.created_at) };
}

function toInbox(row: Row): InboxRecord {
  return {
    id: String(row.id),
    localPart: String(row.local_part),
    domainId: String(row.domain_id),
    domain: String(row.domain),
    ownerUserId: row.owner_user_id === null ? null : String(row.owner_user_id),
    label: row.label === null ? null : String(row.label),
    forwardTo: row.forward_to === null ? null : String(row.forward_to),
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    tokenHash: String(row.token_hash),
    messageCount: Number(row.message_count),
    lastSeq: Number(row.last_seq),
  };
}

function parseJson<T>(value: SQLInputValue | undefined): T {
  return JSON.parse(String(value)) as T;
}

function toSummary(row: Row): MessageSummaryRecord {
  return {
    id: String(row.id),
    inboxId: String(row.inbox_id),
    seq: Number(row.seq),
    from: row.from_json === null ? null : parseJson<AddressRecord>(row.from_json),
    to: parseJson<AddressRecord[]>(row.to_json),
    cc: parseJson<AddressRecord[]>(row.cc_json),
    subject: String(row.subject),
    preview: String(row.preview),
    receivedAt: Number(row.received_at),
    size: Number(row.size),
    hasAttachments: row.has_attachments === 1,
  };
}

function toAttachment(row: Row): AttachmentRecord {
  return {
    id: String(row.id),
    messageId: String(row.message_id),
    filename: String(row.filename),
    contentType: String(row.content_type),
    size: Number(row.size),
    contentId: row.content_id === null ? null : String(row.content_id),
    inline: row.inline === 1,
  };
}

function bytes(value: SQLInputValue | undefined): Uint8Array {
  return value instanceof Uint8Array ? value : new Uint8Array(0);
}

/** The preview of a text body: whitespace collapsed, the first 200 characters. */
export function previewOf(text: string | null): string {
  if (!text) return '';
  return Array.from(text.replace(/\s+/g, ' ').trim()).slice(0, 200).join('');
}

/** A stable id for a domain name, so ids survive restarts of an in-memory store. */
function domainId(domain: string): string {
  return `dom_${createHash('sha256').update(domain.toLowerCase()).digest('hex').slice(0, 12)}`;
}

/**
 * Opens (and migrates) a SQLite store.
 *
 * @example
 * ```ts
 * const store = createSqliteStore();                         // in memory
 * const durable = createSqliteStore({ path: './inboxkit.db' }); // a file, WAL
 * ```
 */
export function createSqliteStore(options: SqliteStoreOptions = {}): Store {
  const path = options.path && options.path !== ':memory:' ? options.path : ':memory:';
  const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
  if (path !== ':memory:') {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
    db.exec('PRAGMA busy_timeout = 5000');
  }
  db.exec('PRAGMA foreign_keys = ON');
  migrate(db, options.migrationsDir ?? new URL('./migrations/', import.meta.url));

  const cache = new Map<string, StatementSync>();
  const stmt = (sql: string): StatementSync => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
  const get = (sql: string, ...params: SQLInputValue[]) => stmt(sql).get(...params) as Row | undefined;
  const all = (sql: string, ...params: SQLInputValue[]) => stmt(sql).all(...params) as Row[];
  const run = (sql: string, ...params: SQLInputValue[]) => stmt(sql).run(...params);

  /** Runs `fn` in one write transaction (node:sqlite is synchronous: nothing interleaves). */
  function transaction<T>(fn: () => T): T {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }

  const inboxById = (id: string): InboxRecord | null => {
    const row = get(`SELECT ${INBOX_COLUMNS} FROM inboxes i JOIN domains d ON d.id = i.domain_id WHERE i.id = ?`, id);
    return row ? toInbox(row) : null;
  };

  let closed = false;

  const store: Store = {
    async syncDomains(domains) {
      transaction(() => {
        run('UPDATE domains SET active = 0, is_default = 0');
        domains.forEach((domain, position) => {
          const name = domain.toLowerCase();
          run(
            `INSERT INTO domains (id, domain, is_default, active, position) VALUES (?, ?, ?, 1, ?)
             ON CONFLICT(domain) DO UPDATE SET is_default = excluded.is_default, active = 1, position = excluded.position`,
            domainId(name), name, position === 0 ? 1 : 0, position,
          );
        });
      });
      return store.listDomains();
    },
    async listDomains() {
      return all('SELECT id, domain, is_default FROM domains WHERE active = 1 ORDER BY position').map(toDomain);
    },
    async findDomainById(id) {
      const row = get('SELECT id, domain, is_default FROM domains WHERE id = ? AND active = 1', id);
      return row ? toDomain(row) : null;
    },
    async findDomainByName(domain) {
      const row = get('SELECT id, domain, is_default FROM domains WHERE domain = ? COLLATE NOCASE AND active = 1', domain);
      return row ? toDomain(row) : null;
    },

    async createUser({ email, planId }) {
      const user: UserRecord = { id: newId('usr'), email, planId, createdAt: Date.now() };
      run('INSERT INTO users (id, email, plan_id, created_at) VALUES (?, ?, ?, ?)', user.id, email, planId, user.createdAt);
      return user;
    },
    async findUserById(id) {
      const row = get('SELECT * FROM users WHERE id = ?', id);
      return row ? toUser(row) : null;
    },
    async findUserByEmail(email) {
      const row = get('SELECT * FROM users WHERE email = ? COLLATE NOCASE', email);
      return row ? toUser(row) : null;
    },
    async addApiKey(userId, keyHash, options = {}) {
      run('INSERT INTO api_keys (key_hash, user_id, created_at, configured) VALUES (?, ?, ?, ?)', keyHash, userId, Date.now(), options.configured ? 1 : 0);
    },
    async removeConfiguredApiKeysExcept(keyHashes) {
      return transaction(() => {
        const keep = new Set(keyHashes);
        let removed = 0;
        for (const row of all('SELECT key_hash FROM api_keys WHERE configured = 1')) {
          if (!keep.has(String(row.key_hash))) removed += Number(run('DELETE FROM api_keys WHERE key_hash = ?', String(row.key_hash)).changes);
        }
        return removed;
      });
    },
    async findUserByApiKeyHash(keyHash) {
      const row = get('SELECT u.* FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?', keyHash);
      return row ? toUser(row) : null;
    },
    async addSession({ tokenHash, userId, expiresAt, codeHash }) {
      run('INSERT INTO sessions (token_hash, user_id, expires_at, code_hash) VALUES (?, ?, ?, ?)', tokenHash, userId, expiresAt, codeHash);
    },
    async findSession(tokenHash) {
      const row = get('SELECT user_id, expires_at, revoked FROM sessions WHERE token_hash = ?', tokenHash);
      return row ? { userId: String(row.user_id), expiresAt: Number(row.expires_at), revoked: row.revoked === 1 } : null;
    },
    async revokeSession(tokenHash) {
      return Number(run('UPDATE sessions SET revoked = 1 WHERE token_hash = ? AND revoked = 0', tokenHash).changes) > 0;
    },
    async revokeSessionsByCode(codeHash) {
      return Number(run('UPDATE sessions SET revoked = 1 WHERE code_hash = ? AND revoked = 0', codeHash).changes);
    },
    async addConnectCode({ codeHash, userId, challenge, redirectUri, expiresAt }) {
      run(
        'INSERT INTO connect_codes (code_hash, user_id, challenge, redirect_uri, expires_at) VALUES (?, ?, ?, ?, ?)',
        codeHash, userId, challenge, redirectUri, expiresAt,
      );
    },
    async spendConnectCode(codeHash) {
      return transaction(() => {
        const row = get('SELECT user_id, challenge, redirect_uri, expires_at, used FROM connect_codes WHERE code_hash = ?', codeHash);
        if (!row) return null;
        run('UPDATE connect_codes SET used = 1 WHERE code_hash = ?', codeHash);
        return {
          userId: String(row.user_id),
          challenge: String(row.challenge),
          redirectUri: String(row.redirect_uri),
          expiresAt: Number(row.expires_at),
          used: row.used === 1,
        };
      });
    },

    async createInbox(inbox) {
      return transaction(() => {
        const existing = get(
          'SELECT id, expires_at FROM inboxes WHERE domain_id = ? AND local_part = ? COLLATE NOCASE',
          inbox.domainId, inbox.localPart,
        );
        if (existing) {
          const expiresAt = existing.expires_at === null ? null : Number(existing.expires_at);
          if (expiresAt === null || expiresAt > inbox.createdAt) return 'address_taken' as const;
          run('DELETE FROM inboxes WHERE id = ?', String(existing.id));
        }
        const id = newId('ibx');
        run(
          `INSERT INTO inboxes (id, local_part, domain_id, owner_user_id, label, created_at, expires_at, token_hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          id, inbox.localPart, inbox.domainId, inbox.ownerUserId, inbox.label, inbox.createdAt, inbox.expiresAt, inbox.tokenHash,
        );
        const created = inboxById(id);
        if (!created) throw new Error(`inboxkit: inbox ${id} vanished after insert (domain ${inbox.domainId} unknown?)`);
        return created;
      });
    },
    async findInboxById(id) {
      return inboxById(id);
    },
    async findInboxByTokenHash(tokenHash) {
      const row = get(`SELECT ${INBOX_COLUMNS} FROM inboxes i JOIN domains d ON d.id = i.domain_id WHERE i.token_hash = ?`, tokenHash);
      return row ? toInbox(row) : null;
    },
    async findActiveInboxByAddress(localPart, domain, now) {
      const row = get(
        `SELECT ${INBOX_COLUMNS} FROM inboxes i JOIN domains d ON d.id = i.domain_id
         WHERE d.domain = ? COLLATE NOCASE AND d.active = 1
           AND i.local_part = ? COLLATE NOCASE AND i.local_part = ? COLLATE BINARY
           AND (i.expires_at IS NULL OR i.expires_at > ?)`,
        domain, localPart, localPart, now,
      );
      return row ? toInbox(row) : null;
    },
    async listActiveInboxes({ cursor, limit, now }) {
      const before = cursor === null ? Number.MAX_SAFE_INTEGER : decodeCursor('i', cursor);
      const rows = all(
        `SELECT ${INBOX_COLUMNS} FROM inboxes i JOIN domains d ON d.id = i.domain_id
         WHERE (i.expires_at IS NULL OR i.expires_at > ?) AND i.n < ?
         ORDER BY i.n DESC LIMIT ?`,
        now, before, limit + 1,
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map(toInbox),
        nextCursor: rows.length > limit && last ? encodeCursor('i', Number(last.n)) : null,
      };
    },
    async listInboxesByOwner(userId, { cursor, limit, now }) {
      const before = cursor === null ? Number.MAX_SAFE_INTEGER : decodeCursor('i', cursor);
      const rows = all(
        `SELECT ${INBOX_COLUMNS} FROM inboxes i JOIN domains d ON d.id = i.domain_id
         WHERE i.owner_user_id = ? AND (i.expires_at IS NULL OR i.expires_at > ?) AND i.n < ?
         ORDER BY i.n DESC LIMIT ?`,
        userId, now, before, limit + 1,
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map(toInbox),
        nextCursor: rows.length > limit && last ? encodeCursor('i', Number(last.n)) : null,
      };
    },
    async countActiveInboxesByOwner(userId, now) {
      const row = get('SELECT COUNT(*) AS c FROM inboxes WHERE owner_user_id = ? AND (expires_at IS NULL OR expires_at > ?)', userId, now);
      return Number(row?.c ?? 0);
    },
    async updateInbox(id, patch) {
      transaction(() => {
        if (patch.label !== undefined) run('UPDATE inboxes SET label = ? WHERE id = ?', patch.label, id);
        if (patch.forwardTo !== undefined) run('UPDATE inboxes SET forward_to = ? WHERE id = ?', patch.forwardTo, id);
      });
      return inboxById(id);
    },
    async deleteInbox(id) {
      return transaction(() => {
        const row = get('SELECT message_count FROM inboxes WHERE id = ?', id);
        if (!row) return null;
        run('DELETE FROM inboxes WHERE id = ?', id);
        return { messagesDeleted: Number(row.message_count) };
      });
    },
    async sweepExpired(now) {
      return transaction(() => {
        const ids = all('SELECT id FROM inboxes WHERE expires_at IS NOT NULL AND expires_at <= ?', now).map((r) => String(r.id));
        for (const id of ids) run('DELETE FROM inboxes WHERE id = ?', id);
        return ids;
      });
    },

    async insertMessage(inboxIds, message, receivedAt) {
      const preview = previewOf(message.text);
      const size = message.raw.byteLength;
      return transaction(() => {
        const stored: MessageSummaryRecord[] = [];
        for (const inboxId of new Set(inboxIds)) {
          const bumped = get(
            'UPDATE inboxes SET last_seq = last_seq + 1, message_count = message_count + 1 WHERE id = ? RETURNING last_seq',
            inboxId,
          );
          // The inbox was deleted between RCPT and the end of DATA: nothing to store for it.
          if (!bumped) continue;
          const id = newId('msg');
          run(
            `INSERT INTO messages (id, inbox_id, seq, from_json, to_json, cc_json, reply_to_json, subject, preview, received_at,
               size, has_attachments, headers_json, text_body, raw_html, envelope_from)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            id, inboxId, Number(bumped.last_seq),
            message.from === null ? null : JSON.stringify(message.from),
            JSON.stringify(message.to), JSON.stringify(message.cc), JSON.stringify(message.replyTo),
            message.subject, preview, receivedAt, size, message.attachments.length > 0 ? 1 : 0,
            JSON.stringify(message.headers), message.text, message.rawHtml, message.envelopeFrom,
          );
          run('INSERT INTO message_raw (message_id, raw) VALUES (?, ?)', id, message.raw);
          message.attachments.forEach((a, position) => {
            run(
              `INSERT INTO attachments (id, message_id, position, filename, content_type, size, content_id, inline, content)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
              newId('att'), id, position, a.filename, a.contentType, a.content.byteLength, a.contentId, a.inline ? 1 : 0, a.content,
            );
          });
          const row = get(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE id = ?`, id);
          if (row) stored.push(toSummary(row));
        }
        return stored;
      });
    },
    async listMessages(inboxId, { cursor, limit, q = null }) {
      const before = cursor === null ? Number.MAX_SAFE_INTEGER : decodeCursor('m', cursor);
      // LIKE with an escape character, so the search text's % and _ are literal.
      const like = q === null || q === '' ? null : `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      const rows =
        like === null
          ? all(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE inbox_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, inboxId, before, limit + 1)
          : all(
              `SELECT ${SUMMARY_COLUMNS} FROM messages WHERE inbox_id = ? AND seq < ?
                 AND (subject LIKE ? ESCAPE '\\' OR from_json LIKE ? ESCAPE '\\' OR to_json LIKE ? ESCAPE '\\'
                      OR cc_json LIKE ? ESCAPE '\\' OR text_body LIKE ? ESCAPE '\\')
               ORDER BY seq DESC LIMIT ?`,
              inboxId, before, like, like, like, like, like, limit + 1,
            );
      const page = rows.slice(0, limit).map(toSummary);
      const last = page.at(-1);
      return { items: page, nextCursor: rows.length > limit && last ? encodeCursor('m', last.seq) : null } satisfies RecordPage<MessageSummaryRecord>;
    },
    async listMessagesAfterSeq(inboxId, afterSeq, limit) {
      return all(
        `SELECT ${SUMMARY_COLUMNS} FROM messages WHERE inbox_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?`,
        inboxId, afterSeq, limit,
      ).map(toSummary);
    },
    async findMessage(id) {
      const row = get(`SELECT ${SUMMARY_COLUMNS}, reply_to_json, headers_json, text_body, raw_html, sanitized_html FROM messages WHERE id = ?`, id);
      if (!row) return null;
      const attachments = all(
        'SELECT id, message_id, filename, content_type, size, content_id, inline FROM attachments WHERE message_id = ? ORDER BY position',
        id,
      ).map(toAttachment);
      const message: MessageRecord = {
        ...toSummary(row),
        replyTo: parseJson<AddressRecord[]>(row.reply_to_json),
        headers: parseJson<Record<string, string>>(row.headers_json),
        text: row.text_body === null ? null : String(row.text_body),
        rawHtml: row.raw_html === null ? null : String(row.raw_html),
        sanitizedHtml: row.sanitized_html === null ? null : String(row.sanitized_html),
        attachments,
      };
      return message;
    },
    async setSanitizedHtml(messageId, html) {
      run('UPDATE messages SET sanitized_html = ? WHERE id = ?', html, messageId);
    },
    async findRaw(messageId) {
      const row = get('SELECT raw FROM message_raw WHERE message_id = ?', messageId);
      return row ? bytes(row.raw) : null;
    },
    async findAttachment(messageId, attachmentId) {
      const row = get(
        'SELECT id, message_id, filename, content_type, size, content_id, inline, content FROM attachments WHERE message_id = ? AND id = ?',
        messageId, attachmentId,
      );
      return row ? { record: toAttachment(row), content: bytes(row.content) } : null;
    },
    async deleteMessage(id) {
      return transaction(() => {
        const row = get('SELECT inbox_id FROM messages WHERE id = ?', id);
        if (!row) return false;
        run('DELETE FROM messages WHERE id = ?', id);
        run('UPDATE inboxes SET message_count = message_count - 1 WHERE id = ?', String(row.inbox_id));
        return true;
      });
    },
    async evictOldest(inboxId, keep) {
      const keepCount = Math.max(0, keep);
      // Called after every delivery: an inbox under its limit costs one indexed read, no write transaction.
      const counted = get('SELECT message_count FROM inboxes WHERE id = ?', inboxId);
      if (!counted || Number(counted.message_count) <= keepCount) return 0;
      return transaction(() => {
        const gone = Number(
          run(
            `DELETE FROM messages WHERE inbox_id = ?1 AND seq <=
               (SELECT seq FROM messages WHERE inbox_id = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)`,
            inboxId, keepCount,
          ).changes,
        );
        if (gone > 0) run('UPDATE inboxes SET message_count = message_count - ? WHERE id = ?', gone, inboxId);
        return gone;
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      cache.clear();
      db.close();
    },
  };
  return store;
}
