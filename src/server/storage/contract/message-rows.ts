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
export const SUMMARY_COLUMNS = 'id, inbox_id, seq, from_json, to_json, cc_json, subject, preview, received_at, size, has_attachments, seen';

/** The columns of an attachment's metadata, in `SELECT` order. */
export const ATTACHMENT_COLUMNS = 'id, message_id, filename, content_type, size, content_id, inline';

/** Row mappers of summaries and attachments, for a dialect's boolean columns. */
export function messageRowMappers(flag: ColumnReader<boolean>): { toSummary: (row: Row) => MessageSummaryRecord; toAttachment: (row: Row) => AttachmentRecord } {
  return {
    toSummary: rowMapper<MessageSummaryRecord>({
      id: text, inboxId: text, seq: num, from: ['from_json', (v) => (v === null ? null : json<AddressRecord>(v))],
      to: ['to_json', json<AddressRecord[]>], cc: ['cc_json', json<AddressRecord[]>], subject: text, preview: text,
      receivedAt: num, size: num, hasAttachments: flag, seen: flag,
    }),
    toAttachment: rowMapper<AttachmentRecord>({
      id: text, messageId: text, filename: text, contentType: text, size: num, contentId: textOrNull, inline: flag,
    }),
  };
}

const WHITESPACE = /\s/;

/** Whether the UTF-16 unit at `i` is whitespace as `\s` (and `trim`) means it. */
function isSpace(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code < 0x80) return code === 32 || (code >= 9 && code <= 13);
  return WHITESPACE.test(text.charAt(i));
}

/**
 * The preview of a text body: whitespace collapsed, the first 200 characters
 * (code points). Reads only as far into the body as the preview needs, then
 * collapses just that part.
 */
export function previewOf(body: string | null): string {
  if (!body) return '';
  let count = 0;
  let space = false;
  // End of the part of the body the preview is made of.
  let end = 0;
  for (let i = 0; i < body.length; ) {
    if (isSpace(body, i)) {
      // A run of whitespace counts as one space, and only between two other characters.
      space = count > 0;
      i++;
      continue;
    }
    if (space) {
      space = false;
      if (count === 200) break;
      count++;
      end = i;
    }
    if (count === 200) break;
    const code = body.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && (body.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    i += pair ? 2 : 1;
    count++;
    end = i;
  }
  return body.slice(0, end).replace(/\s+/g, ' ').trimStart();
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
