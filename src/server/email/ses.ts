/**
 * Amazon SES v2's wire format (REST-JSON), as its API documents it and
 * `@aws-sdk/client-sesv2` reads it: `SendEmail`'s `Content` (`Simple`,
 * `Raw`, `Template`), `SendBulkEmail`'s entries, `CreateEmailTemplate`, the
 * answers (`{ MessageId }`), and the errors (`x-amzn-ErrorType` naming the
 * exception, `{ message }`) the SDK throws as its named exceptions.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import addressparser from 'nodemailer/lib/addressparser';
import { addressesOf, isMailAddress } from './compose.ts';
import type { EmailAttachment } from './compose.ts';

/** SES's limit of recipients per email (To, Cc and Bcc together), and of entries per bulk send. */
export const SES_MAX_RECIPIENTS = 50;
export const SES_MAX_BULK = 50;

/** An SES v2 answer: status, JSON body, and the error type header when it is an error. */
export interface SesAnswer {
  status: 200 | 400 | 403 | 404 | 413;
  body: unknown;
  errorType?: string;
}

/** An SES v2 error: the exception's name in `x-amzn-ErrorType`, `{ message }` in the body. */
export function sesError(status: SesAnswer['status'], type: string, message: string): SesAnswer {
  return { status, body: { message }, errorType: type };
}

/** A message id as SES makes them (`0100…-…-000000`). */
export function sesMessageId(): string {
  return `0100${randomBytes(8).toString('hex')}-${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(6).toString('hex')}-000000`;
}

/** Recipients of a `Destination`. */
export interface SesDestination {
  to: string[];
  cc: string[];
  bcc: string[];
}

type Json = Record<string, unknown>;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The recipients of a `Destination`, or the error naming a bad one. */
export function destinationOf(value: unknown): SesDestination | SesAnswer {
  const json = (typeof value === 'object' && value !== null ? value : {}) as Json;
  const destination = { to: strings(json.ToAddresses), cc: strings(json.CcAddresses), bcc: strings(json.BccAddresses) };
  for (const address of [...destination.to, ...destination.cc, ...destination.bcc]) {
    const bare = addressesOf(address)[0]?.address ?? '';
    if (!isMailAddress(bare)) return sesError(400, 'BadRequestException', `Illegal address: ${address}`);
  }
  const total = destination.to.length + destination.cc.length + destination.bcc.length;
  if (total > SES_MAX_RECIPIENTS) return sesError(400, 'BadRequestException', `Recipient count exceeds ${SES_MAX_RECIPIENTS}.`);
  return destination;
}

/** The bare addresses of a destination. */
export function destinationAddresses(destination: SesDestination): string[] {
  return [...destination.to, ...destination.cc, ...destination.bcc].flatMap((a) => addressesOf(a).map((one) => one.address));
}

/** The `Simple` content of a send: subject, bodies, attachments and headers. */
export interface SesSimple {
  subject: string;
  text: string | undefined;
  html: string | undefined;
  headers: Record<string, string>;
  attachments: EmailAttachment[];
}

function data(value: unknown): string | undefined {
  const json = (typeof value === 'object' && value !== null ? value : {}) as Json;
  return typeof json.Data === 'string' ? json.Data : undefined;
}

/** Reads `Content.Simple`, or the error naming what is missing. */
export function simpleOf(value: Json): SesSimple | SesAnswer {
  const subject = data(value.Subject);
  if (subject === undefined) return sesError(400, 'BadRequestException', 'Missing required field: Content.Simple.Subject.');
  const body = (typeof value.Body === 'object' && value.Body !== null ? value.Body : {}) as Json;
  const [text, html] = [data(body.Text), data(body.Html)];
  if (text === undefined && html === undefined) return sesError(400, 'BadRequestException', 'Missing required field: Content.Simple.Body (Text or Html).');
  const headers = Array.isArray(value.Headers) ? Object.fromEntries((value.Headers as Json[]).filter((h) => typeof h?.Name === 'string').map((h) => [String(h.Name), String(h.Value ?? '')])) : {};
  const attachments: EmailAttachment[] = Array.isArray(value.Attachments)
    ? (value.Attachments as Json[]).map((a, index) => ({
        filename: typeof a.FileName === 'string' ? a.FileName : `attachment-${index + 1}`,
        content: typeof a.RawContent === 'string' ? Buffer.from(a.RawContent, 'base64') : new Uint8Array(),
        contentType: typeof a.ContentType === 'string' ? a.ContentType : undefined,
        contentId: typeof a.ContentId === 'string' ? a.ContentId : undefined,
      }))
    : [];
  return { subject, text, html, headers, attachments };
}

/** Reads a template's data (a JSON string), or the error. */
export function templateDataOf(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '') return {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return sesError(400, 'BadRequestException', 'TemplateData is not valid JSON.');
  }
}

/**
 * The recipients a raw message names (`To`, `Cc`, `Bcc` of its header
 * block), for a raw send without a `Destination`.
 */
export function rawRecipients(raw: Uint8Array): string[] {
  const text = Buffer.from(raw.subarray(0, Math.min(raw.byteLength, 256 * 1024))).toString('utf8');
  const end = text.search(/\r?\n\r?\n/);
  const head = (end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const out: string[] = [];
  for (const line of head.split(/\r?\n/)) {
    const match = /^(to|cc|bcc):(.*)$/i.exec(line);
    if (match?.[2]) for (const a of addressparser(match[2], { flatten: true })) out.push(a.address);
  }
  return out;
}

/** The `From` of a raw message's header block. */
export function rawFrom(raw: Uint8Array): string {
  const text = Buffer.from(raw.subarray(0, Math.min(raw.byteLength, 64 * 1024))).toString('utf8');
  const match = /^from:(.*)$/im.exec(text.split(/\r?\n\r?\n/)[0] ?? '');
  return match?.[1] ? (addressparser(match[1], { flatten: true })[0]?.address ?? '') : '';
}
