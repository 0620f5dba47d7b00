/**
 * Resend's API wire format, as its REST API documents it and the `resend`
 * SDK reads it: a send's JSON fields (snake_case), the answer `{ id }` (a
 * batch's `{ data: [{ id }] }`), and the error body
 * `{ statusCode, name, message }` the SDK hands back as `{ error }`.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { addressesOf, isMailAddress } from './compose.ts';
import type { EmailAttachment, EmailToCompose, MailAddress } from './compose.ts';
import { isAnswer } from './answer.ts';

/** Resend's limit of recipients per field (`to`, `cc`, `bcc`), and of emails per batch. */
export const RESEND_MAX_RECIPIENTS = 50;
export const RESEND_MAX_BATCH = 100;

/** A Resend answer: the status and its JSON body. */
export interface ResendAnswer {
  status: 200 | 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429;
  body: unknown;
}

/** A Resend error name, as its docs list them. */
export type ResendErrorName =
  | 'missing_required_field'
  | 'validation_error'
  | 'invalid_from_address'
  | 'invalid_attachment'
  | 'invalid_idempotency_key'
  | 'invalid_idempotent_request'
  | 'concurrent_idempotent_requests'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'not_found'
  | 'rate_limit_exceeded';

/** A Resend error: `{ statusCode, name, message }`. */
export function resendError(status: ResendAnswer['status'], name: ResendErrorName, message: string): ResendAnswer {
  return { status, body: { statusCode: status, name, message } };
}

/** An email id, as Resend makes them (a UUID). */
export function resendId(): string {
  return randomUUID();
}

/** A send as read from its JSON: its fields, the bare recipient addresses, and the envelope sender. */
export interface ResendSend {
  email: Omit<EmailToCompose, 'providerId'>;
  recipients: string[];
  envelopeFrom: string;
}

type Json = Record<string, unknown>;

function list(value: unknown): string[] | null {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : null;
}

const FORMAT = 'The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.';

/** The addresses of a field, or the validation error naming it. */
function addressField(body: Json, field: string): MailAddress[] | ResendAnswer {
  const values = list(body[field]);
  if (values === null) return resendError(422, 'validation_error', `Invalid \`${field}\` field: a string or an array of strings.`);
  const addresses = addressesOf(values);
  const bad = addresses.find((a) => !isMailAddress(a.address));
  if (bad || addresses.length < values.length) return resendError(422, 'validation_error', `Invalid \`${field}\` field. ${FORMAT}`);
  if (addresses.length > RESEND_MAX_RECIPIENTS) return resendError(422, 'validation_error', `Too many recipients in \`${field}\`: at most ${RESEND_MAX_RECIPIENTS}.`);
  return addresses;
}


/** The attachments of a send, decoded, or the error naming the bad one. */
function attachmentsOf(value: unknown): EmailAttachment[] | ResendAnswer {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return resendError(422, 'invalid_attachment', '`attachments` must be an array of { filename, content }.');
  const out: EmailAttachment[] = [];
  for (const [index, item] of (value as Json[]).entries()) {
    if (typeof item?.path === 'string' && item.content === undefined) return resendError(422, 'invalid_attachment', `attachments[${index}]: inboxkit does not fetch \`path\` URLs; send the file's \`content\` (base64) instead.`);
    if (typeof item?.content !== 'string') return resendError(422, 'invalid_attachment', `attachments[${index}]: \`content\` must be the file's content in base64.`);
    const filename = typeof item.filename === 'string' ? item.filename : `attachment-${index + 1}`;
    out.push({ filename, content: Buffer.from(item.content, 'base64'), contentType: typeof item.content_type === 'string' ? item.content_type : undefined, contentId: typeof item.content_id === 'string' ? item.content_id : undefined });
  }
  return out;
}

/** The tags of a send (`name=value`), or the error naming the bad one. */
function tagsOf(value: unknown): string[] | ResendAnswer {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return resendError(422, 'validation_error', '`tags` must be an array of { name, value }.');
  const out: string[] = [];
  for (const tag of value as Json[]) {
    const name = typeof tag?.name === 'string' ? tag.name : '';
    const tagValue = typeof tag?.value === 'string' ? tag.value : '';
    if (!/^[A-Za-z0-9_-]{1,256}$/.test(name) || !/^[A-Za-z0-9_-]{0,256}$/.test(tagValue)) {
      return resendError(422, 'validation_error', 'Tags should only contain ASCII letters, numbers, underscores, or dashes (at most 256 each).');
    }
    out.push(`${name}=${tagValue}`);
  }
  return out;
}

function headersOf(value: unknown): Record<string, string> | ResendAnswer {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return resendError(422, 'validation_error', '`headers` must be an object of header names and string values.');
  return Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, String(v)]));
}

function text(body: Json, field: string): string | undefined {
  return typeof body[field] === 'string' ? (body[field] as string) : undefined;
}

/** The required fields of a send, or the error naming the first missing. */
function missingField(body: Json): ResendAnswer | null {
  for (const field of ['from', 'to'] as const) {
    if (body[field] === undefined || body[field] === null || body[field] === '') return resendError(422, 'missing_required_field', `Missing \`${field}\` field.`);
  }
  if (body.template === undefined) {
    if (body.subject === undefined) return resendError(422, 'missing_required_field', 'Missing `subject` field.');
    if (body.html === undefined && body.text === undefined) return resendError(422, 'missing_required_field', 'Missing `html` or `text` field.');
  }
  return null;
}

/** Reads a send's JSON (one email of a batch alike): its fields, or Resend's error naming what is wrong. */
export function parseResendSend(body: unknown): ResendSend | ResendAnswer {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return resendError(422, 'validation_error', 'The request body must be a JSON object with `from`, `to`, `subject` and `html` or `text`.');
  const json = body as Json;
  const missing = missingField(json);
  if (missing) return missing;
  const from = addressesOf(typeof json.from === 'string' ? json.from : '');
  if (from.length !== 1 || !from[0] || !isMailAddress(from[0].address)) return resendError(422, 'invalid_from_address', `Invalid \`from\` field. ${FORMAT}`);
  const fields = { to: addressField(json, 'to'), cc: addressField(json, 'cc'), bcc: addressField(json, 'bcc'), replyTo: addressField(json, 'reply_to') };
  const attachments = attachmentsOf(json.attachments);
  const tags = tagsOf(json.tags);
  const headers = headersOf(json.headers);
  for (const part of [...Object.values(fields), attachments, tags, headers]) if (isAnswer(part)) return part;
  const [to, cc, bcc] = [fields.to, fields.cc, fields.bcc] as MailAddress[][];
  const template = typeof json.template === 'object' && json.template !== null ? (json.template as Json) : null;
  const email: ResendSend['email'] = {
    provider: 'resend',
    from: String(json.from),
    to: (list(json.to) ?? []),
    cc: list(json.cc) ?? [],
    replyTo: list(json.reply_to) ?? [],
    subject: text(json, 'subject') ?? '',
    text: text(json, 'text'),
    html: text(json, 'html'),
    headers: headers as Record<string, string>,
    attachments: attachments as EmailAttachment[],
    tags: tags as string[],
    template: template ? { id: String(template.id ?? ''), data: template.variables ?? {} } : undefined,
    scheduledAt: text(json, 'scheduled_at'),
  };
  const recipients = [...(to ?? []), ...(cc ?? []), ...(bcc ?? [])].map((a) => a.address);
  return { email, recipients, envelopeFrom: from[0].address };
}
