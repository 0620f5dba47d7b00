/**
 * The columns and row mappers of messages and attachments that both SQL
 * dialects share (each passes its own reader of boolean columns).
 *
 * @packageDocumentation
 */
import { json, num, rowMapper, text, textOrNull } from './rows.ts';
import type { ColumnReader, Row } from './rows.ts';
import type { AddressRecord, AttachmentRecord, MessageEnvelope, MessageSummaryRecord } from './types.ts';

/** The columns of a message summary, in `SELECT` order. */
export const SUMMARY_COLUMNS = 'id, inbox_id, seq, from_json, to_json, cc_json, subject, preview, received_at, size, has_attachments';

/** The columns of an attachment's metadata, in `SELECT` order. */
export const ATTACHMENT_COLUMNS = 'id, message_id, filename, content_type, size, content_id, inline';

/** Row mappers of summaries and attachments, for a dialect's boolean columns. */
export function messageRowMappers(flag: ColumnReader<boolean>): { toSummary: (row: Row) => MessageSummaryRecord; toAttachment: (row: Row) => AttachmentRecord } {
  return {
    toSummary: rowMapper<MessageSummaryRecord>({
      id: text, inboxId: text, seq: num, from: ['from_json', (v) => (v === null ? null : json<AddressRecord>(v))],
      to: ['to_json', json<AddressRecord[]>], cc: ['cc_json', json<AddressRecord[]>], subject: text, preview: text,
      receivedAt: num, size: num, hasAttachments: flag,
    }),
    toAttachment: rowMapper<AttachmentRecord>({
      id: text, messageId: text, filename: text, contentType: text, size: num, contentId: textOrNull, inline: flag,
    }),
  };
}

const WHITESPACE = /\s/;

/**
 * The preview of a text body: whitespace collapsed, the first 200 characters
 * (code points). Reads only as far into the body as the preview needs.
 */
export function previewOf(body: string | null): string {
  if (!body) return '';
  let preview = '';
  let count = 0;
  let space = false;
  for (const ch of body) {
    // A run of whitespace becomes one space, and only between two other characters (trimmed at both ends).
    if (WHITESPACE.test(ch)) {
      space = count > 0;
      continue;
    }
    if (space) {
      if (count === 200) break;
      preview += ' ';
      count++;
      space = false;
    }
    if (count === 200) break;
    preview += ch;
    count++;
  }
  return preview;
}

/** The `envelope_json` column: the stored envelope, or null (none recorded, or unreadable). */
export function envelopeOf(value: unknown): MessageEnvelope | null {
  if (value === null || value === undefined) return null;
  try {
    const parsed = JSON.parse(String(value)) as Partial<MessageEnvelope>;
    return {
      mailFrom: typeof parsed.mailFrom === 'string' ? parsed.mailFrom : '',
      rcptTo: Array.isArray(parsed.rcptTo) ? parsed.rcptTo.filter((r): r is string => typeof r === 'string') : [],
      clientAddress: typeof parsed.clientAddress === 'string' ? parsed.clientAddress : null,
      helo: typeof parsed.helo === 'string' ? parsed.helo : null,
    };
  } catch {
    return null;
  }
}

/** An envelope as the `envelope_json` column stores it (null when there is none). */
export function envelopeJson(envelope: MessageEnvelope | undefined): string | null {
  return envelope === undefined ? null : JSON.stringify({ mailFrom: envelope.mailFrom, rcptTo: envelope.rcptTo, clientAddress: envelope.clientAddress, helo: envelope.helo });
}
