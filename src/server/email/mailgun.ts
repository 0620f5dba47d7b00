/**
 * Mailgun's Messages API wire format, as its REST API documents it and
 * `mailgun.js` sends it: the multipart form of `messages.create()` (`from`,
 * `to`, `h:` headers, `v:` variables, `t:variables`, `template`, `o:tag`,
 * `o:testmode`, `recipient-variables`, `attachment`, `inline`; `message` for
 * a MIME send), the answer `{ id, message: 'Queued. Thank you.' }`, and the
 * error body `{ message }` the SDK throws with its status.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import { addressesOf, isMailAddress } from './compose.ts';
import type { EmailAttachment } from './compose.ts';

/** Mailgun's limit of recipients per message (to, cc and bcc together). */
export const MAILGUN_MAX_RECIPIENTS = 1000;

/** A Mailgun answer: the status and its JSON body (or text, for a 401). */
export interface MailgunAnswer {
  status: 200 | 400 | 401 | 404 | 413;
  body: unknown;
}

/** A Mailgun error: `{ message }`. */
export function mailgunError(status: MailgunAnswer['status'], message: string): MailgunAnswer {
  return { status, body: { message } };
}

/** A message id as Mailgun makes them (`<timestamp.random@domain>`), without its brackets. */
export function mailgunMessageId(domain: string): string {
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  return `${stamp}.${randomBytes(8).toString('hex')}@${domain.replace(/[^A-Za-z0-9.-]/g, '')}`;
}

/** A form as Hono's `parseBody({ all: true })` reads it. */
export type MailgunForm = Record<string, string | File | (string | File)[]>;

/** Every string value of a field (repeated fields, and comma-separated lists, as Mailgun reads `to`). */
export function values(form: MailgunForm, name: string): string[] {
  const value = form[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((v): v is string => typeof v === 'string');
}

/** The first string value of a field, or undefined. */
export function first(form: MailgunForm, name: string): string | undefined {
  return values(form, name)[0];
}

/** The files of a field. */
export async function filesOf(form: MailgunForm, name: string): Promise<EmailAttachment[]> {
  const value = form[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const out: EmailAttachment[] = [];
  for (const file of all) {
    if (typeof file === 'string') continue;
    out.push({ filename: file.name || 'attachment', content: new Uint8Array(await file.arrayBuffer()), contentType: file.type || undefined, ...(name === 'inline' ? { contentId: file.name } : {}) });
  }
  return out;
}

/** The addresses of a recipient field, or the error naming it. */
export function recipientsOf(form: MailgunForm, name: string): string[] | MailgunAnswer {
  const out: string[] = [];
  for (const value of values(form, name)) {
    for (const address of addressesOf(value)) {
      if (!isMailAddress(address.address)) return mailgunError(400, `${name} parameter is not a valid address. please check documentation`);
      out.push(address.address);
    }
  }
  return out;
}

/** The `h:` headers of a send, and its `v:` variables as Mailgun's `X-Mailgun-Variables` header. */
export function headersOf(form: MailgunForm): Record<string, string> {
  const headers: Record<string, string> = {};
  const variables: Record<string, string> = {};
  for (const key of Object.keys(form)) {
    const value = first(form, key);
    if (value === undefined) continue;
    if (key.startsWith('h:')) headers[key.slice(2)] = value;
    if (key.startsWith('v:')) variables[key.slice(2)] = value;
  }
  if (Object.keys(variables).length > 0) headers['X-Mailgun-Variables'] = JSON.stringify(variables);
  return headers;
}

/** Parses a JSON field (`t:variables`, `recipient-variables`), or the error naming it. */
export function jsonField(form: MailgunForm, name: string): Record<string, unknown> | null | MailgunAnswer {
  const value = first(form, name);
  if (value === undefined || value.trim() === '') return null;
  try {
    const parsed = JSON.parse(value) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  return mailgunError(400, `${name} parameter is not a valid JSON object`);
}

/** Replaces `%recipient.key%` with a recipient's variables (Mailgun's batch sending). */
export function recipientSubstitute(text: string | undefined, variables: Record<string, unknown> | undefined): string | undefined {
  if (text === undefined || !variables) return text;
  return text.replace(/%recipient\.([A-Za-z0-9_-]+)%/g, (whole, key: string) => (key in variables ? String(variables[key]) : whole));
}
