/**
 * Presenters: storage records to the wire shapes the API sends (times as ISO
 * 8601 strings in UTC), plus the download header. Every resource presents
 * through here.
 *
 * @packageDocumentation
 */
import type { Attachment, Domain, Inbox, Message, MessageSummary } from '../../wire/schemas.ts';
import { isPhoneLocalPart } from '../../wire/phones.ts';
import type { AddressRecord, AttachmentRecord, DomainRecord, InboxRecord, MessageRecord, MessageSummaryRecord } from '../storage/contract/types.ts';
import { readerHtml } from '../mail/prepare.ts';
import type { HtmlReader } from '../mail/prepare.ts';

/** Epoch milliseconds as an ISO 8601 UTC timestamp. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The address of a local part on a domain, `local@domain`. */
export function addressOf(localPart: string, domain: string): string {
  return `${localPart}@${domain}`;
}

/** A mailbox as sent: exactly its address and display name. */
function toWireAddress(a: AddressRecord): { address: string; name: string } {
  return { address: a.address, name: a.name };
}

/** A domain as sent. */
export function toWireDomain(d: DomainRecord): Domain {
  return { id: d.id, domain: d.domain, isDefault: d.isDefault };
}

/** An inbox as sent (never with its token). */
export function toWireInbox(i: InboxRecord): Inbox {
  return {
    id: i.id,
    address: addressOf(i.localPart, i.domain),
    localPart: i.localPart,
    domainId: i.domainId,
    domain: i.domain,
    label: i.label,
    forwardTo: i.forwardTo,
    createdAt: iso(i.createdAt),
    expiresAt: i.expiresAt === null ? null : iso(i.expiresAt),
    messageCount: i.messageCount,
    ...(isPhoneLocalPart(i.localPart) ? { phoneNumber: i.localPart } : {}),
  };
}

/** A stored message summary as sent. */
export function toMessageSummary(record: MessageSummaryRecord): MessageSummary {
  return {
    id: record.id,
    inboxId: record.inboxId,
    seq: record.seq,
    from: record.from ? toWireAddress(record.from) : null,
    to: record.to.map(toWireAddress),
    cc: record.cc.map(toWireAddress),
    subject: record.subject,
    preview: record.preview,
    receivedAt: iso(record.receivedAt),
    size: record.size,
    hasAttachments: record.hasAttachments,
    seen: record.seen ?? false,
  };
}

/** Attachment metadata as sent. */
function toAttachment(record: AttachmentRecord): Attachment {
  return {
    id: record.id,
    filename: record.filename,
    contentType: record.contentType,
    size: record.size,
    contentId: record.contentId,
    inline: record.inline,
  };
}

/**
 * A whole message as sent: `html` is the HTML sanitized at intake, or by
 * `html` (the node's reader, {@link HtmlReader}) when that was left to its readers.
 */
export function toMessage(record: MessageRecord, html: HtmlReader = readerHtml): Message {
  return {
    ...toMessageSummary(record),
    replyTo: record.replyTo.map(toWireAddress),
    headers: { ...record.headers },
    text: record.text,
    html: html(record),
    attachments: record.attachments.map(toAttachment),
    envelope: record.envelope ? { mailFrom: record.envelope.mailFrom, rcptTo: [...record.envelope.rcptTo], clientAddress: record.envelope.clientAddress, helo: record.envelope.helo } : null,
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
