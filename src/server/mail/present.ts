import type { Attachment, Message, MessageSummary } from '../../wire/schemas.ts';
import type { AttachmentRecord, MessageRecord, MessageSummaryRecord } from '../storage/types.ts';

/** A stored message summary as the API sends it (times as ISO 8601 UTC). */
export function toMessageSummary(record: MessageSummaryRecord): MessageSummary {
  return {
    id: record.id,
    inboxId: record.inboxId,
    seq: record.seq,
    from: record.from ? { address: record.from.address, name: record.from.name } : null,
    to: record.to.map((a) => ({ address: a.address, name: a.name })),
    cc: record.cc.map((a) => ({ address: a.address, name: a.name })),
    subject: record.subject,
    preview: record.preview,
    receivedAt: new Date(record.receivedAt).toISOString(),
    size: record.size,
    hasAttachments: record.hasAttachments,
  };
}

/** Attachment metadata as the API sends it. */
export function toAttachment(record: AttachmentRecord): Attachment {
  return {
    id: record.id,
    filename: record.filename,
    contentType: record.contentType,
    size: record.size,
    contentId: record.contentId,
    inline: record.inline,
  };
}

/** A whole message as the API sends it, with its already sanitized HTML. */
export function toMessage(record: MessageRecord, sanitizedHtml: string | null): Message {
  return {
    ...toMessageSummary(record),
    replyTo: record.replyTo.map((a) => ({ address: a.address, name: a.name })),
    headers: { ...record.headers },
    text: record.text,
    html: sanitizedHtml,
    attachments: record.attachments.map(toAttachment),
  };
}

/**
 * `Content-Disposition` for a download (RFC 6266): an ASCII `filename` fallback
 * for old clients and the exact name as `filename*=UTF-8''…` (RFC 8187).
 */
export function contentDisposition(filename: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_') || 'attachment';
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
