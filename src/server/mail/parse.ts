import { simpleParser } from 'mailparser';
import type { AddressObject, Attachment as ParsedAttachment, ParsedMail } from 'mailparser';
import type { AddressRecord, ParsedMessage } from '../storage/contract/types.ts';
import { decodeHeaderWords } from './headers.ts';

/** Options of {@link parseMessage}. */
export interface ParseOptions {
  /** Envelope sender (MAIL FROM); `''` for the null sender. */
  envelopeFrom: string;
  /**
   * How long mailparser may take before the message is stored with the
   * fallback reading (raw source, headers, body as text).
   * @defaultValue 10_000
   */
  timeoutMs?: number;
}

/** What {@link parseMessage} returns: the message and, when the full parse failed, why. */
export interface ParseResult {
  message: ParsedMessage;
  /** Set when mailparser failed or timed out and the fallback reading was used. */
  fallbackReason: string | null;
}

/**
 * Parses a raw RFC 5322 message into what the store keeps.
 *
 * Never rejects: when mailparser fails (or exceeds `timeoutMs`), the message
 * is still returned with its raw source and whatever a plain header/body split
 * could read, so the sender's mail is never lost. Bodies are decoded from any
 * transfer encoding and charset; text is derived from the HTML when the mail
 * has no text part; attachments without a filename get one generated from
 * their position and type.
 *
 * @example
 * ```ts
 * const { message } = await parseMessage(raw, { envelopeFrom: 'app@example.com' });
 * await store.insertMessage([inbox.id], message, Date.now());
 * ```
 */
export async function parseMessage(raw: Uint8Array, options: ParseOptions): Promise<ParseResult> {
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const timeoutMs = options.timeoutMs ?? 10_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const parsed = await Promise.race([
      simpleParser(buffer, {
        keepCidLinks: true,
        skipImageLinks: true,
        skipTextToHtml: true,
        skipTextLinks: true,
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`parsing took longer than ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { message: fromParsed(raw, parsed, options.envelopeFrom), fallbackReason: null };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { message: fallbackParse(raw, options.envelopeFrom), fallbackReason: reason };
  } finally {
    clearTimeout(timer);
  }
}

function fromParsed(raw: Uint8Array, mail: ParsedMail, envelopeFrom: string): ParsedMessage {
  const headers = headersFromLines(mail.headerLines.map((h) => h.line));
  const html = typeof mail.html === 'string' && mail.html.length > 0 ? mail.html : null;
  const text = typeof mail.text === 'string' ? mail.text : null;
  return {
    raw,
    from: addresses(mail.from)[0] ?? null,
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    replyTo: addresses(mail.replyTo),
    subject: stripControls(mail.subject ?? ''),
    headers,
    text: text === null && html === null ? null : (text ?? ''),
    rawHtml: html,
    envelopeFrom,
    attachments: mail.attachments.map((attachment, index) => toAttachment(attachment, index)),
  };
}

function toAttachment(attachment: ParsedAttachment, index: number): ParsedMessage['attachments'][number] {
  const contentType = normaliseContentType(attachment.contentType);
  const contentId = attachment.cid ? attachment.cid.replace(/^<|>$/g, '') : null;
  const inline = attachment.contentDisposition === 'inline' || (attachment.related === true && contentId !== null);
  const filename = attachment.filename && attachment.filename.trim() !== '' ? sanitiseFilename(attachment.filename) : generatedFilename(index, contentType);
  return {
    filename,
    contentType,
    contentId,
    inline,
    content: new Uint8Array(attachment.content.buffer, attachment.content.byteOffset, attachment.content.byteLength),
  };
}

/** Flattens address lists and groups into `{ address, name }` records. */
function addresses(value: AddressObject | AddressObject[] | undefined): AddressRecord[] {
  if (!value) return [];
  const objects = Array.isArray(value) ? value : [value];
  const out: AddressRecord[] = [];
  const visit = (entries: AddressObject['value']) => {
    for (const entry of entries) {
      if (entry.group) visit(entry.group);
      else if (entry.address || entry.name) out.push({ address: stripControls(entry.address ?? ''), name: stripControls(entry.name ?? '') });
    }
  };
  for (const object of objects) visit(object.value);
  return out;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Raw 8-bit bytes in a header (RFC 6532), which the MIME parser hands over one
 * character per byte: read as UTF-8, as the parser reads the subject and the
 * addresses, so `headers` and `subject` agree; bytes that are not valid UTF-8
 * stay as they were (Latin-1).
 */
function eightBitAsUtf8(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\x80-\xff]/.test(value) || /[^\x00-\xff]/.test(value)) return value;
  try {
    return strictUtf8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

/**
 * Header lines to a record of lower-cased names to unfolded, decoded values; a
 * repeated header has its values joined by a line feed, in message order.
 */
export function headersFromLines(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name === '' || /[^\x21-\x7e]/.test(name)) continue;
    const value = stripControls(decodeHeaderWords(eightBitAsUtf8(line.slice(colon + 1)).replace(/\r?\n[ \t]/g, ' ').trim()));
    headers[name] = name in headers ? `${headers[name]}\n${value}` : value;
  }
  // A plain object again, so that JSON encoding and zod treat it as a record.
  return { ...headers };
}

/**
 * The reading used when mailparser cannot parse a message: the header block
 * split into lines, the subject and first From address taken from it, and the
 * body kept as text.
 */
export function fallbackParse(raw: Uint8Array, envelopeFrom: string): ParsedMessage {
  const source = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  const split = /\r?\n\r?\n/.exec(source);
  const headerBlock = split ? source.slice(0, split.index) : source;
  const body = split ? source.slice(split.index + split[0].length) : '';
  const lines: string[] = [];
  for (const line of headerBlock.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && lines.length > 0) lines[lines.length - 1] += `\n${line}`;
    else lines.push(line);
  }
  const headers = headersFromLines(lines);
  const fromHeader = headers['from']?.split('\n')[0] ?? '';
  const match = /<([^<>\s]+@[^<>\s]+)>/.exec(fromHeader) ?? /([^\s<>",;]+@[^\s<>",;]+)/.exec(fromHeader);
  const from = match?.[1] ? { address: match[1], name: fromHeader.replace(/<[^>]*>/, '').replace(/"/g, '').trim() } : null;
  return {
    raw,
    from,
    to: [],
    cc: [],
    replyTo: [],
    subject: headers['subject']?.split('\n')[0] ?? '',
    headers,
    text: Buffer.from(body, 'latin1').toString('utf8'),
    rawHtml: null,
    envelopeFrom,
    attachments: [],
  };
}

/**
 * One line of text from a header: CR and LF (which a decoded encoded-word can
 * carry) become spaces, NUL and the other C0 controls but tab are dropped.
 */
function stripControls(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/\r\n|[\r\n]/g, ' ').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

function normaliseContentType(value: string | undefined): string {
  const type = (value ?? '').trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : 'application/octet-stream';
}

function sanitiseFilename(name: string): string {
  // Path separators and controls are never useful in a download name.
  // eslint-disable-next-line no-control-regex
  const cleaned = name.replace(/[\x00-\x1f\x7f/\\]/g, '_').trim();
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'attachment' : cleaned.slice(0, 255);
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/bmp': 'bmp',
  'text/plain': 'txt',
  'text/html': 'html',
  'text/csv': 'csv',
  'text/calendar': 'ics',
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'application/json': 'json',
  'application/xml': 'xml',
  'message/rfc822': 'eml',
  'message/delivery-status': 'txt',
  'application/pgp-signature': 'asc',
  'application/pkcs7-signature': 'p7s',
};

/** `attachment-2.png`, `attachment-3.bin`: 1-based position and an extension from the type. */
export function generatedFilename(index: number, contentType: string): string {
  return `attachment-${index + 1}.${EXTENSIONS[contentType] ?? 'bin'}`;
}
