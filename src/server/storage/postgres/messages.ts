/**
 * The messages aggregate on PostgreSQL (twin of `../sqlite/messages.ts`).
 *
 * Storing a message bumps each recipient inbox's `last_seq` with an UPDATE in
 * the same transaction: the inbox row stays locked until commit, so a second
 * delivery to that inbox (on any node) waits, then takes the next seq. Seqs are
 * therefore gapless and in commit order, and when seq n is visible every seq
 * below it is too, which is what stream catch-up relies on. Inboxes are locked
 * in id order, so two multi-recipient deliveries never deadlock. The same
 * transaction NOTIFYs the other nodes (ids only), delivered at commit.
 *
 * @packageDocumentation
 */
import { decodeCursor, encodeCursor } from '../contract/cursor.ts';
import { newId } from '../contract/ids.ts';
import type { AddressRecord, AttachmentRecord, MessageEnvelope, MessageRecord, MessageStore, NewMessage } from '../contract/types.ts';
import { bytes, flag, json, keysetPage, mapRow, text, textOrNull } from './database.ts';
import type { CommitCheck, PgSql, Row, Sql } from './database.ts';
import { ATTACHMENT_COLUMNS, SUMMARY_COLUMNS, envelopeJson, envelopeOf, messageRowMappers, previewOf } from '../contract/message-rows.ts';
import { EVENTS_CHANNEL, messageNotification } from './notify.ts';

const { toSummary, toAttachment } = messageRowMappers(flag);

const WHOLE_COLUMNS = `${SUMMARY_COLUMNS}, reply_to_json, headers_json, text_body, raw_html, sanitized_html, envelope_json`;

/** A message row read with {@link WHOLE_COLUMNS}, with its attachments' metadata, as a whole record. */
function toWhole(row: Row, attachments: AttachmentRecord[]): MessageRecord {
  return {
    ...toSummary(row),
    replyTo: json<AddressRecord[]>(row.reply_to_json),
    headers: json<Record<string, string>>(row.headers_json),
    text: textOrNull(row.text_body),
    rawHtml: textOrNull(row.raw_html),
    sanitizedHtml: textOrNull(row.sanitized_html),
    attachments,
    envelope: envelopeOf(row.envelope_json),
  };
}

/**
 * Stores one copy of a message in an inbox: bumps the inbox's seq, inserts the
 * message and its raw source, in one statement, then its attachments. Resolves
 * with the stored copy whole (as `findMessage` reads it), or null when the inbox is gone.
 */
async function insertCopy(tx: Sql, inboxId: string, message: NewMessage, receivedAt: number, envelope: MessageEnvelope | undefined): Promise<MessageRecord | null> {
  const row = await tx.get(
    `WITH bumped AS (
       UPDATE inboxes SET last_seq = last_seq + 1, message_count = message_count + 1 WHERE id = $1 RETURNING last_seq
     ), stored AS (
       INSERT INTO messages (id, inbox_id, seq, from_json, to_json, cc_json, reply_to_json, subject, preview, received_at,
         size, has_attachments, headers_json, text_body, raw_html, sanitized_html, envelope_from, envelope_json)
       SELECT $2, $1, last_seq, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $18 FROM bumped
       RETURNING ${WHOLE_COLUMNS}
     ), raw AS (
       INSERT INTO message_raw (message_id, raw) SELECT id, $17 FROM stored
     )
     SELECT * FROM stored`,
    inboxId, newId('msg'),
    message.from === null ? null : JSON.stringify(message.from),
    JSON.stringify(message.to), JSON.stringify(message.cc), JSON.stringify(message.replyTo),
    message.subject, previewOf(message.text), receivedAt, message.raw.byteLength, message.attachments.length > 0,
    JSON.stringify(message.headers), message.text, message.rawHtml, message.sanitizedHtml, message.envelopeFrom, Buffer.from(message.raw),
    envelopeJson(envelope),
  );
  if (!row) return null;
  const messageId = text(row.id);
  const attachments: AttachmentRecord[] = [];
  for (const [position, a] of message.attachments.entries()) {
    const stored = await tx.get(
      `INSERT INTO attachments (id, message_id, position, filename, content_type, size, content_id, inline, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${ATTACHMENT_COLUMNS}`,
      newId('att'), messageId, position, a.filename, a.contentType, a.content.byteLength, a.contentId, a.inline, Buffer.from(a.content),
    );
    if (stored) attachments.push(toAttachment(stored));
  }
  return toWhole(row, attachments);
}

/**
 * Whether a message whose COMMIT went unanswered was stored: its copies are
 * there (all or none, one transaction). Answering the sender "stored" then,
 * instead of 451, spares it a retry that would store the message twice. Asked
 * for up to 30 s while the database restarts; a sender waits that long for its
 * reply to the end of DATA (Postfix: 10 min), and a node's sessions are capped.
 */
const STORED_CHECK: CommitCheck<MessageRecord[]> = {
  withinMs: 30_000,
  async committed(stored, sql) {
    if (stored.length === 0) return true;
    const row = await sql.get('SELECT count(*) AS n FROM messages WHERE id = ANY($1)', stored.map((m) => m.id));
    return Number(row?.n ?? 0) === stored.length;
  },
};

/** The message queries of a PostgreSQL store. */
export function createPostgresMessages(sql: PgSql): MessageStore {
  return {
    async insertMessage(inboxIds, message, receivedAt, envelopes) {
      return sql.transaction(async (tx) => {
        const stored: MessageRecord[] = [];
        for (const inboxId of [...new Set(inboxIds)].sort()) {
          // The inbox was deleted between RCPT and the end of DATA: nothing to store for it.
          const record = await insertCopy(tx, inboxId, message, receivedAt, envelopes?.get(inboxId));
          if (!record) continue;
          await tx.run('SELECT pg_notify($1, $2)', EVENTS_CHANNEL, messageNotification(sql.nodeId, inboxId, record.id, record.seq));
          stored.push(record);
        }
        // In the order the recipients were given, like the SQLite store.
        const order = [...new Set(inboxIds)];
        return stored.sort((a, b) => order.indexOf(a.inboxId) - order.indexOf(b.inboxId));
      }, STORED_CHECK);
    },
    async listMessages(inboxId, { cursor, limit, q = null }) {
      const before = cursor === null ? Number.MAX_SAFE_INTEGER : decodeCursor('m', cursor);
      // ILIKE with an escape character, so the search text's % and _ are literal
      // (case-insensitive like SQLite's LIKE, which the twin store uses).
      const like = q === null || q === '' ? null : `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      const rows =
        like === null
          ? await sql.all(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE inbox_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`, inboxId, before, limit + 1)
          : await sql.all(
              `SELECT ${SUMMARY_COLUMNS} FROM messages WHERE inbox_id = $1 AND seq < $2
                 AND (subject ILIKE $3 ESCAPE '\\' OR from_json ILIKE $3 ESCAPE '\\' OR to_json ILIKE $3 ESCAPE '\\'
                      OR cc_json ILIKE $3 ESCAPE '\\' OR text_body ILIKE $3 ESCAPE '\\')
               ORDER BY seq DESC LIMIT $4`,
              inboxId, before, like, limit + 1,
            );
      return keysetPage(rows, limit, toSummary, (last) => encodeCursor('m', Number(last.seq)));
    },
    async listMessagesAfterSeq(inboxId, afterSeq, limit) {
      const rows = await sql.all(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE inbox_id = $1 AND seq > $2 ORDER BY seq ASC LIMIT $3`, inboxId, afterSeq, limit);
      return rows.map(toSummary);
    },
    async findMessage(id) {
      const row = await sql.get(`SELECT ${WHOLE_COLUMNS} FROM messages WHERE id = $1`, id);
      if (!row) return null;
      const attachments = (await sql.all(`SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE message_id = $1 ORDER BY position`, id)).map(toAttachment);
      return toWhole(row, attachments);
    },
    async findRaw(messageId) {
      return mapRow(await sql.get('SELECT raw FROM message_raw WHERE message_id = $1', messageId), (row) => bytes(row.raw));
    },
    async findAttachment(messageId, attachmentId) {
      const row = await sql.get(`SELECT ${ATTACHMENT_COLUMNS}, content FROM attachments WHERE message_id = $1 AND id = $2`, messageId, attachmentId);
      return mapRow(row, (r) => ({ record: toAttachment(r), content: bytes(r.content) }));
    },
    async deleteMessage(id) {
      const row = await sql.get(
        `WITH gone AS (DELETE FROM messages WHERE id = $1 RETURNING inbox_id)
         UPDATE inboxes SET message_count = message_count - 1 FROM gone WHERE inboxes.id = gone.inbox_id RETURNING inboxes.id`,
        id,
      );
      return row !== undefined;
    },
    async listSeenMessageIds(inboxId, limit) {
      return (await sql.all('SELECT id FROM messages WHERE inbox_id = $1 AND seen ORDER BY seq ASC LIMIT $2', inboxId, limit)).map((row) => String(row.id));
    },
    async setMessageSeen(id, seen) {
      return (await sql.run('UPDATE messages SET seen = $1 WHERE id = $2', seen, id)).changes > 0;
    },
    async evictOldest(inboxId, keep) {
      const keepCount = Math.max(0, keep);
      // Called after every delivery: an inbox under its limit costs one indexed read, no write.
      const counted = await sql.get('SELECT message_count FROM inboxes WHERE id = $1', inboxId);
      if (!counted || Number(counted.message_count) <= keepCount) return 0;
      return sql.transaction(async (tx) => {
        // The inbox row lock orders this eviction with deliveries and other nodes' evictions.
        const locked = await tx.get('SELECT message_count FROM inboxes WHERE id = $1 FOR UPDATE', inboxId);
        if (!locked || Number(locked.message_count) <= keepCount) return 0;
        const gone = await tx.run(
          `DELETE FROM messages WHERE inbox_id = $1 AND seq <=
             (SELECT seq FROM messages WHERE inbox_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)`,
          inboxId, keepCount,
        );
        if (gone.changes > 0) await tx.run('UPDATE inboxes SET message_count = message_count - $1 WHERE id = $2', gone.changes, inboxId);
        return gone.changes;
      });
    },
  };
}
