/**
 * The messages aggregate on SQLite: a message stored once per recipient inbox
 * (each inbox's seq bumped in the same transaction), its raw source and
 * attachments beside it, listing by seq, and eviction of the oldest.
 *
 * @packageDocumentation
 */
import { MESSAGE_CURSOR, decodeCursor, encodeCursor } from '../contract/cursor.ts';
import type { AddressRecord, AttachmentRecord, MessageEnvelope, MessageRecord, MessageStore, NewMessage } from '../contract/types.ts';
import { bytes, flag, json, keysetPage, mapRow, newId, textOrNull } from './database.ts';
import type { Sql } from './database.ts';
import { ATTACHMENT_COLUMNS, SUMMARY_COLUMNS, envelopeJson, envelopeOf, messageRowMappers, previewOf } from '../contract/message-rows.ts';

const { toSummary, toAttachment } = messageRowMappers(flag);

/** A string as SQLite's UTF-8 gives it back: each lone surrogate becomes U+FFFD. */
function asStored(value: string): string {
  return (value as string & { toWellFormed(): string }).toWellFormed();
}

/** A nullable string as SQLite gives it back. */
function asStoredOrNull(value: string | null): string | null {
  return value === null ? null : asStored(value);
}

/**
 * Stores one copy of a message in an inbox whose seq was just bumped to `seq`.
 * Resolves with the copy whole, as {@link readMessage} would read it back, built
 * from the values just written instead of reading the row again: the JSON
 * columns are parsed from the text written, strings pass through the same
 * lone-surrogate replacement SQLite's UTF-8 applies.
 */
function insertCopy(sql: Sql, inboxId: string, seq: number, message: NewMessage, receivedAt: number, envelope: MessageEnvelope | undefined): MessageRecord {
  const id = newId('msg');
  const fromJson = message.from === null ? null : JSON.stringify(message.from);
  const toJson = JSON.stringify(message.to);
  const ccJson = JSON.stringify(message.cc);
  const replyToJson = JSON.stringify(message.replyTo);
  const headersJson = JSON.stringify(message.headers);
  const preview = previewOf(message.text);
  const storedEnvelope = envelopeJson(envelope);
  sql.run(
    `INSERT INTO messages (id, inbox_id, seq, from_json, to_json, cc_json, reply_to_json, subject, preview, received_at,
       size, has_attachments, headers_json, text_body, raw_html, sanitized_html, envelope_from, envelope_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id, inboxId, seq, fromJson, toJson, ccJson, replyToJson,
    message.subject, preview, receivedAt, message.raw.byteLength, message.attachments.length > 0 ? 1 : 0,
    headersJson, message.text, message.rawHtml, message.sanitizedHtml, message.envelopeFrom, storedEnvelope,
  );
  sql.run('INSERT INTO message_raw (message_id, raw) VALUES (?, ?)', id, message.raw);
  const attachments: AttachmentRecord[] = message.attachments.map((a, position) => {
    const attachmentId = newId('att');
    sql.run(
      `INSERT INTO attachments (id, message_id, position, filename, content_type, size, content_id, inline, content)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      attachmentId, id, position, a.filename, a.contentType, a.content.byteLength, a.contentId, a.inline ? 1 : 0, a.content,
    );
    return {
      id: attachmentId, messageId: id, filename: asStored(a.filename), contentType: asStored(a.contentType),
      size: a.content.byteLength, contentId: asStoredOrNull(a.contentId), inline: a.inline,
    };
  });
  return {
    id, inboxId, seq,
    from: fromJson === null ? null : json<AddressRecord>(fromJson),
    to: json<AddressRecord[]>(toJson), cc: json<AddressRecord[]>(ccJson),
    subject: asStored(message.subject), preview: asStored(preview), receivedAt,
    size: message.raw.byteLength, hasAttachments: message.attachments.length > 0, seen: false,
    replyTo: json<AddressRecord[]>(replyToJson), headers: json<Record<string, string>>(headersJson),
    text: asStoredOrNull(message.text), rawHtml: asStoredOrNull(message.rawHtml), sanitizedHtml: asStoredOrNull(message.sanitizedHtml),
    attachments,
    envelope: envelopeOf(storedEnvelope),
  };
}

/** A stored message with its bodies and attachment metadata, or null. */
function readMessage(sql: Sql, id: string): MessageRecord | null {
  const row = sql.get(`SELECT ${SUMMARY_COLUMNS}, reply_to_json, headers_json, text_body, raw_html, sanitized_html, envelope_json FROM messages WHERE id = ?`, id);
  if (!row) return null;
  const attachments = sql.all(`SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE message_id = ? ORDER BY position`, id).map(toAttachment);
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

/** The message queries of a SQLite store. */
export function createSqliteMessages(sql: Sql): MessageStore {
  return {
    async insertMessage(inboxIds, message, receivedAt, envelopes) {
      return sql.transaction(() => {
        const stored: MessageRecord[] = [];
        for (const inboxId of new Set(inboxIds)) {
          const bumped = sql.get(
            'UPDATE inboxes SET last_seq = last_seq + 1, message_count = message_count + 1 WHERE id = ? RETURNING last_seq',
            inboxId,
          );
          // The inbox was deleted between RCPT and the end of DATA: nothing to store for it.
          if (!bumped) continue;
          stored.push(insertCopy(sql, inboxId, Number(bumped.last_seq), message, receivedAt, envelopes?.get(inboxId)));
        }
        return stored;
      });
    },
    async listMessages(inboxId, { cursor, limit, q = null }) {
      const before = cursor === null ? Number.MAX_SAFE_INTEGER : decodeCursor(MESSAGE_CURSOR, cursor);
      // LIKE with an escape character, so the search text's % and _ are literal.
      const like = q === null || q === '' ? null : `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      const rows =
        like === null
          ? sql.all(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE inbox_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, inboxId, before, limit + 1)
          : sql.all(
              `SELECT ${SUMMARY_COLUMNS} FROM messages WHERE inbox_id = ? AND seq < ?
                 AND (subject LIKE ? ESCAPE '\\' OR from_json LIKE ? ESCAPE '\\' OR to_json LIKE ? ESCAPE '\\'
                      OR cc_json LIKE ? ESCAPE '\\' OR text_body LIKE ? ESCAPE '\\')
               ORDER BY seq DESC LIMIT ?`,
              inboxId, before, like, like, like, like, like, limit + 1,
            );
      return keysetPage(rows, limit, toSummary, (last) => encodeCursor(MESSAGE_CURSOR, Number(last.seq)));
    },
    async listMessagesAfterSeq(inboxId, afterSeq, limit) {
      return sql
        .all(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE inbox_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?`, inboxId, afterSeq, limit)
        .map(toSummary);
    },
    async findMessage(id) {
      return readMessage(sql, id);
    },
    async findRaw(messageId) {
      return mapRow(sql.get('SELECT raw FROM message_raw WHERE message_id = ?', messageId), (row) => bytes(row.raw));
    },
    async findAttachment(messageId, attachmentId) {
      const row = sql.get(`SELECT ${ATTACHMENT_COLUMNS}, content FROM attachments WHERE message_id = ? AND id = ?`, messageId, attachmentId);
      return mapRow(row, (r) => ({ record: toAttachment(r), content: bytes(r.content) }));
    },
    async deleteMessage(id) {
      return sql.transaction(() => {
        const row = sql.get('SELECT inbox_id FROM messages WHERE id = ?', id);
        if (!row) return false;
        sql.run('DELETE FROM messages WHERE id = ?', id);
        sql.run('UPDATE inboxes SET message_count = message_count - 1 WHERE id = ?', String(row.inbox_id));
        return true;
      });
    },
    async listSeenMessageIds(inboxId, limit) {
      return sql.all('SELECT id FROM messages WHERE inbox_id = ? AND seen = 1 ORDER BY seq ASC LIMIT ?', inboxId, limit).map((row) => String(row.id));
    },
    async setMessageSeen(id, seen) {
      return sql.run('UPDATE messages SET seen = ? WHERE id = ?', seen ? 1 : 0, id).changes > 0;
    },
    async evictOldest(inboxId, keep) {
      const keepCount = Math.max(0, keep);
      // Called after every delivery: an inbox under its limit costs one indexed read, no write transaction.
      const counted = sql.get('SELECT message_count FROM inboxes WHERE id = ?', inboxId);
      if (!counted || Number(counted.message_count) <= keepCount) return 0;
      return sql.transaction(() => {
        const gone = Number(
          sql.run(
            `DELETE FROM messages WHERE inbox_id = ?1 AND seq <=
               (SELECT seq FROM messages WHERE inbox_id = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)`,
            inboxId, keepCount,
          ).changes,
        );
        if (gone > 0) sql.run('UPDATE inboxes SET message_count = message_count - ? WHERE id = ?', gone, inboxId);
        return gone;
      });
    },
  };
}
