/**
 * The inboxes aggregate on SQLite: create (an expired holder of the address
 * gives way), find by id, token or address, list a user's, update, delete and
 * sweep. Messages go with their inbox (`ON DELETE CASCADE`).
 *
 * @packageDocumentation
 */
import { INBOX_CURSOR, decodeCursor, encodeCursor } from '../contract/cursor.ts';
import type { InboxCap, InboxRecord, InboxStore } from '../contract/types.ts';
import { keysetPage, mapRow, newId, num, numberOrNull, rowMapper, text, textOrNull } from './database.ts';
import type { Sql } from './database.ts';
import { SWEEP_OWNER_SQL } from '../contract/retention-types.ts';

/** Expired inboxes in their sweep's turn: each owner's by expiry, round by round (see `sweepExpired`); LIMIT -1 is no limit. */
const EXPIRED_IN_TURN = `SELECT id FROM (
  SELECT id, n, expires_at, ROW_NUMBER() OVER (PARTITION BY ${SWEEP_OWNER_SQL} ORDER BY expires_at, n) AS turn
  FROM inboxes WHERE expires_at IS NOT NULL AND expires_at <= ?
) ORDER BY turn, expires_at, n LIMIT ?`;

/** Every column of an inbox row, joined with its domain (`i`, `d`). */
const SELECT_INBOX = `SELECT i.id, i.local_part, i.domain_id, d.domain, i.owner_user_id, i.label, i.forward_to, i.created_at,
  i.expires_at, i.token_hash, i.message_count, i.last_seq, i.n
  FROM inboxes i JOIN domains d ON d.id = i.domain_id`;

const toInbox = rowMapper<InboxRecord>({
  id: text, localPart: text, domainId: text, domain: text, ownerUserId: textOrNull, label: textOrNull, forwardTo: textOrNull,
  createdAt: num, expiresAt: numberOrNull, tokenHash: text, messageCount: num, lastSeq: num,
});

/** Inserts an inbox, inside the caller's transaction; an expired holder of the address gives way. */
function insertInboxIn(sql: Sql, inboxById: (id: string) => InboxRecord | null, inbox: Parameters<InboxStore['createInbox']>[0]): InboxRecord | 'address_taken' {
  const existing = sql.get('SELECT id, expires_at FROM inboxes WHERE domain_id = ? AND local_part = ? COLLATE NOCASE', inbox.domainId, inbox.localPart);
  if (existing) {
    const expiresAt = numberOrNull(existing.expires_at);
    if (expiresAt === null || expiresAt > inbox.createdAt) return 'address_taken';
    sql.run('DELETE FROM inboxes WHERE id = ?', String(existing.id));
  }
  const id = newId('ibx');
  sql.run(
    `INSERT INTO inboxes (id, local_part, domain_id, owner_user_id, label, created_at, expires_at, token_hash, creator_address)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id, inbox.localPart, inbox.domainId, inbox.ownerUserId, inbox.label, inbox.createdAt, inbox.expiresAt, inbox.tokenHash, inbox.creatorAddress ?? null,
  );
  const created = inboxById(id);
  if (!created) throw new Error(`inboxkit: inbox ${id} vanished after insert (domain ${inbox.domainId} unknown?)`);
  return created;
}

/** The inbox queries of a SQLite store. */
export function createSqliteInboxes(sql: Sql): InboxStore {
  const inboxById = (id: string): InboxRecord | null => mapRow(sql.get(`${SELECT_INBOX} WHERE i.id = ?`, id), toInbox);
  const countGuests = (address: string, now: number): number =>
    Number(sql.get('SELECT COUNT(*) AS c FROM inboxes WHERE creator_address = ? AND owner_user_id IS NULL AND (expires_at IS NULL OR expires_at > ?)', address, now)?.c ?? 0);
  const countOwned = (userId: string, now: number): number =>
    Number(sql.get('SELECT COUNT(*) AS c FROM inboxes WHERE owner_user_id = ? AND (expires_at IS NULL OR expires_at > ?)', userId, now)?.c ?? 0);
  const countFor = (count: InboxCap['count'], inbox: { creatorAddress?: string | null; ownerUserId: string | null }, now: number): number =>
    count === 'guestsOfAddress' ? countGuests(inbox.creatorAddress ?? '', now) : countOwned(inbox.ownerUserId ?? '', now);
  const countPrefixed = (cap: InboxCap, inbox: { creatorAddress?: string | null; ownerUserId: string | null }, prefix: string, now: number): number =>
    Number(
      (cap.count === 'guestsOfAddress'
        ? sql.get("SELECT COUNT(*) AS c FROM inboxes WHERE creator_address = ? AND owner_user_id IS NULL AND substr(local_part, 1, length(?)) = ? AND (expires_at IS NULL OR expires_at > ?)", inbox.creatorAddress ?? '', prefix, prefix, now)
        : sql.get("SELECT COUNT(*) AS c FROM inboxes WHERE owner_user_id = ? AND substr(local_part, 1, length(?)) = ? AND (expires_at IS NULL OR expires_at > ?)", inbox.ownerUserId ?? '', prefix, prefix, now)
      )?.c ?? 0,
    );
  const overCap = (cap: InboxCap, inbox: { creatorAddress?: string | null; ownerUserId: string | null; createdAt: number }): boolean =>
    countFor(cap.count, inbox, inbox.createdAt) >= cap.max || (cap.prefix !== undefined && countPrefixed(cap, inbox, cap.prefix.localPartPrefix, inbox.createdAt) >= cap.prefix.max);
  const insertInbox = (inbox: Parameters<InboxStore['createInbox']>[0]) => insertInboxIn(sql, inboxById, inbox);

  return {
    async createInbox(inbox) {
      return sql.transaction(() => insertInbox(inbox));
    },
    async createInboxWithinCap(inbox, cap) {
      // Counted inside the write transaction (BEGIN IMMEDIATE): no other create, in this process or another, runs between the count and the insert.
      return sql.transaction(() => (overCap(cap, inbox) ? ('cap_reached' as const) : insertInbox(inbox)));
    },
    async findInboxById(id) {
      return inboxById(id);
    },
    async findInboxByTokenHash(tokenHash) {
      return mapRow(sql.get(`${SELECT_INBOX} WHERE i.token_hash = ?`, tokenHash), toInbox);
    },
    async findActiveInboxByAddress(localPart, domain, now) {
      const row = sql.get(
        `${SELECT_INBOX}
         WHERE d.domain = ? COLLATE NOCASE AND d.active = 1
           AND i.local_part = ? COLLATE NOCASE
           AND (i.expires_at IS NULL OR i.expires_at > ?)`,
        domain, localPart, now,
      );
      return mapRow(row, toInbox);
    },
    async listInboxesByOwner(userId, { cursor, limit, now }) {
      const before = cursor === null ? Number.MAX_SAFE_INTEGER : decodeCursor(INBOX_CURSOR, cursor);
      const rows = sql.all(
        `${SELECT_INBOX}
         WHERE i.owner_user_id = ? AND (i.expires_at IS NULL OR i.expires_at > ?) AND i.n < ?
         ORDER BY i.n DESC LIMIT ?`,
        userId, now, before, limit + 1,
      );
      return keysetPage(rows, limit, toInbox, (last) => encodeCursor(INBOX_CURSOR, Number(last.n)));
    },
    async listActiveInboxes({ cursor, limit, now }) {
      const before = cursor === null ? Number.MAX_SAFE_INTEGER : decodeCursor('i', cursor);
      const rows = sql.all(
        `${SELECT_INBOX}
         WHERE (i.expires_at IS NULL OR i.expires_at > ?) AND i.n < ?
         ORDER BY i.n DESC LIMIT ?`,
        now, before, limit + 1,
      );
      return keysetPage(rows, limit, toInbox, (last) => encodeCursor('i', Number(last.n)));
    },
    async countActiveGuestInboxesByAddress(address, now) {
      return countGuests(address, now);
    },
    async countActiveInboxesByOwner(userId, now) {
      return countOwned(userId, now);
    },
    async updateInbox(id, patch) {
      sql.transaction(() => {
        if (patch.label !== undefined) sql.run('UPDATE inboxes SET label = ? WHERE id = ?', patch.label, id);
        if (patch.forwardTo !== undefined) sql.run('UPDATE inboxes SET forward_to = ? WHERE id = ?', patch.forwardTo, id);
      });
      return inboxById(id);
    },
    async deleteInbox(id) {
      return sql.transaction(() => {
        const row = sql.get('SELECT message_count FROM inboxes WHERE id = ?', id);
        if (!row) return null;
        sql.run('DELETE FROM inboxes WHERE id = ?', id);
        return { messagesDeleted: Number(row.message_count) };
      });
    },
    async sweepExpired(now, maxInboxes) {
      return sql.transaction(() => {
        const ids = sql.all(EXPIRED_IN_TURN, now, maxInboxes ?? -1).map((r) => String(r.id));
        for (const id of ids) sql.run('DELETE FROM inboxes WHERE id = ?', id);
        return ids;
      });
    },
  };
}
