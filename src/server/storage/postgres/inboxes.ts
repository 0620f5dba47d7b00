/**
 * The inboxes aggregate on PostgreSQL (twin of `../sqlite/inboxes.ts`). The
 * address is unique per domain case-insensitively (a unique index on
 * lower(local_part)), so two nodes creating one address at once get one inbox
 * and one `address_taken`. The sweep is one `DELETE … RETURNING`: with several
 * nodes sweeping, each expired inbox is deleted, and reported, once.
 *
 * @packageDocumentation
 */
import { decodeCursor, encodeCursor } from '../contract/cursor.ts';
import { newId } from '../contract/ids.ts';
import type { InboxCap, InboxRecord, InboxStore } from '../contract/types.ts';
import { keysetPage, mapRow, num, numberOrNull, rowMapper, text, textOrNull } from './database.ts';
import type { PgSql, Sql } from './database.ts';
import { SWEEP_OWNER_SQL } from '../contract/retention-types.ts';
import { pruneRateLimits } from './ratelimits.ts';

/** Every column of an inbox row, joined with its domain (`i`, `d`). */
const SELECT_INBOX = `SELECT i.id, i.local_part, i.domain_id, d.domain, i.owner_user_id, i.label, i.forward_to, i.created_at,
  i.expires_at, i.token_hash, i.message_count, i.last_seq, i.n
  FROM inboxes i JOIN domains d ON d.id = i.domain_id`;

const toInbox = rowMapper<InboxRecord>({
  id: text, localPart: text, domainId: text, domain: text, ownerUserId: textOrNull, label: textOrNull, forwardTo: textOrNull,
  createdAt: num, expiresAt: numberOrNull, tokenHash: text, messageCount: num, lastSeq: num,
});

const inboxById = async (sql: Sql, id: string): Promise<InboxRecord | null> => mapRow(await sql.get(`${SELECT_INBOX} WHERE i.id = $1`, id), toInbox);

const countGuests = async (sql: Sql, address: string, now: number): Promise<number> =>
  Number(
    (await sql.get('SELECT COUNT(*)::int AS c FROM inboxes WHERE creator_address = $1 AND owner_user_id IS NULL AND (expires_at IS NULL OR expires_at > $2)', address, now))?.c ?? 0,
  );
const countOwned = async (sql: Sql, userId: string, now: number): Promise<number> =>
  Number((await sql.get('SELECT COUNT(*)::int AS c FROM inboxes WHERE owner_user_id = $1 AND (expires_at IS NULL OR expires_at > $2)', userId, now))?.c ?? 0);

/**
 * Whether a cap is reached (and its country-code cap, when it has one), counting inside the create's transaction, after taking a
 * transaction-scoped advisory lock on what is counted (the address, or the
 * owner): creates under one cap, on every node, run one after the other, and
 * each count (READ COMMITTED: a fresh snapshot per statement) sees the
 * inboxes the earlier ones committed.
 */
async function overCap(tx: Sql, cap: InboxCap, inbox: { creatorAddress?: string | null; ownerUserId: string | null; createdAt: number }): Promise<boolean> {
  const subject = cap.count === 'guestsOfAddress' ? (inbox.creatorAddress ?? '') : (inbox.ownerUserId ?? '');
  await tx.get('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', `inboxkit:inbox-cap:${cap.count}:${subject}`);
  const all = cap.count === 'guestsOfAddress' ? await countGuests(tx, subject, inbox.createdAt) : await countOwned(tx, subject, inbox.createdAt);
  if (all >= cap.max || !cap.prefix) return all >= cap.max;
  const who = cap.count === 'guestsOfAddress' ? 'creator_address = $1 AND owner_user_id IS NULL' : 'owner_user_id = $1';
  const prefixed = Number((await tx.get(`SELECT COUNT(*)::int AS c FROM inboxes WHERE ${who} AND starts_with(local_part, $2) AND (expires_at IS NULL OR expires_at > $3)`, subject, cap.prefix.localPartPrefix, inbox.createdAt))?.c ?? 0);
  return prefixed >= cap.prefix.max;
}

/** Inserts an inbox inside a transaction; an expired holder of the address gives way (locked, so a sweep on another node waits). */
async function insertInbox(tx: Sql, inbox: Parameters<InboxStore['createInbox']>[0]): Promise<InboxRecord | 'address_taken'> {
  await tx.run(
    `DELETE FROM inboxes WHERE domain_id = $1 AND lower(local_part) = lower($2) AND expires_at IS NOT NULL AND expires_at <= $3`,
    inbox.domainId, inbox.localPart, inbox.createdAt,
  );
  const id = newId('ibx');
  const inserted = await tx.get(
    `INSERT INTO inboxes (id, local_part, domain_id, owner_user_id, label, created_at, expires_at, token_hash, creator_address)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (domain_id, lower(local_part)) DO NOTHING RETURNING id`,
    id, inbox.localPart, inbox.domainId, inbox.ownerUserId, inbox.label, inbox.createdAt, inbox.expiresAt, inbox.tokenHash, inbox.creatorAddress ?? null,
  );
  if (!inserted) return 'address_taken';
  const created = await inboxById(tx, id);
  if (!created) throw new Error(`inboxkit: inbox ${id} vanished after insert (domain ${inbox.domainId} unknown?)`);
  return created;
}

/** The inbox queries of a PostgreSQL store. */
export function createPostgresInboxes(sql: PgSql): InboxStore {
  return {
    async createInbox(inbox) {
      return sql.transaction((tx) => insertInbox(tx, inbox));
    },
    async createInboxWithinCap(inbox, cap) {
      return sql.transaction(async (tx) => ((await overCap(tx, cap, inbox)) ? ('cap_reached' as const) : insertInbox(tx, inbox)));
    },
    async findInboxById(id) {
      return inboxById(sql, id);
    },
    async findInboxByTokenHash(tokenHash) {
      return mapRow(await sql.get(`${SELECT_INBOX} WHERE i.token_hash = $1`, tokenHash), toInbox);
    },
    async findActiveInboxByAddress(localPart, domain, now) {
      const row = await sql.get(
        `${SELECT_INBOX}
         WHERE d.domain = lower($1) AND d.active
           AND lower(i.local_part) = lower($2)
           AND (i.expires_at IS NULL OR i.expires_at > $3)`,
        domain, localPart, now,
      );
      return mapRow(row, toInbox);
    },
    async listInboxesByOwner(userId, { cursor, limit, now }) {
      const before = cursor === null ? Number.MAX_SAFE_INTEGER : decodeCursor('i', cursor);
      const rows = await sql.all(
        `${SELECT_INBOX}
         WHERE i.owner_user_id = $1 AND (i.expires_at IS NULL OR i.expires_at > $2) AND i.n < $3
         ORDER BY i.n DESC LIMIT $4`,
        userId, now, before, limit + 1,
      );
      return keysetPage(rows, limit, toInbox, (last) => encodeCursor('i', Number(last.n)));
    },
    async listActiveInboxes({ cursor, limit, now }) {
      const before = cursor === null ? Number.MAX_SAFE_INTEGER : decodeCursor('i', cursor);
      const rows = await sql.all(
        `${SELECT_INBOX}
         WHERE (i.expires_at IS NULL OR i.expires_at > $1) AND i.n < $2
         ORDER BY i.n DESC LIMIT $3`,
        now, before, limit + 1,
      );
      return keysetPage(rows, limit, toInbox, (last) => encodeCursor('i', Number(last.n)));
    },
    async countActiveGuestInboxesByAddress(address, now) {
      return countGuests(sql, address, now);
    },
    async countActiveInboxesByOwner(userId, now) {
      return countOwned(sql, userId, now);
    },
    async updateInbox(id, patch) {
      if (patch.label !== undefined || patch.forwardTo !== undefined) {
        await sql.run(
          `UPDATE inboxes SET label = CASE WHEN $2 THEN $3 ELSE label END, forward_to = CASE WHEN $4 THEN $5 ELSE forward_to END WHERE id = $1`,
          id, patch.label !== undefined, patch.label ?? null, patch.forwardTo !== undefined, patch.forwardTo ?? null,
        );
      }
      return inboxById(sql, id);
    },
    async deleteInbox(id) {
      const row = await sql.get('DELETE FROM inboxes WHERE id = $1 RETURNING message_count', id);
      return row ? { messagesDeleted: Number(row.message_count) } : null;
    },
    async sweepExpired(now, maxInboxes) {
      // Chosen in turn, then deleted: a row another node deleted meanwhile is simply not returned here.
      const rows = await sql.all(
        `WITH chosen AS (SELECT id, ord FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY turn, expires_at, n) AS ord FROM (
           SELECT id, n, expires_at, ROW_NUMBER() OVER (PARTITION BY ${SWEEP_OWNER_SQL} ORDER BY expires_at, n) AS turn
           FROM inboxes WHERE expires_at IS NOT NULL AND expires_at <= $1) turns) ordered ORDER BY ord LIMIT $2),
         gone AS (DELETE FROM inboxes WHERE id IN (SELECT id FROM chosen) AND expires_at <= $1 RETURNING id)
         SELECT gone.id FROM gone JOIN chosen USING (id) ORDER BY chosen.ord`,
        now,
        maxInboxes ?? null,
      );
      // Ended rate-limit windows go with the same periodic sweep.
      await pruneRateLimits(sql, now);
      return rows.map((r) => String(r.id));
    },
  };
}
