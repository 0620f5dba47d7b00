/**
 * SendGrid's v3 Mail Send wire format, as its REST API documents it and
 * `@sendgrid/mail` sends it: the body (`personalizations`, `from`, `content`,
 * `template_id`, `attachments`, `categories`, `mail_settings` …), the
 * answer (`202` with an `X-Message-Id` header, `200` in sandbox mode), and
 * the error body `{ errors: [{ message, field, help }] }` the SDK throws as
 * a `ResponseError`.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import { isMailAddress } from './compose.ts';
import type { EmailAttachment } from './compose.ts';
import { isAnswer } from './answer.ts';

/** SendGrid's limits: recipients per request (to, cc and bcc of every personalization), and personalizations. */
export const SENDGRID_MAX_RECIPIENTS = 1000;

/** A SendGrid answer: the status, its body (`null`: none), and its headers. */
export interface SendGridAnswer {
  status: 200 | 202 | 400 | 401 | 404 | 413;
  body: unknown;
  headers?: Record<string, string>;
}

/** A SendGrid error: `{ errors: [{ message, field, help }] }`. */
export function sendGridError(status: SendGridAnswer['status'], message: string, field: string | null = null): SendGridAnswer {
  return { status, body: { errors: [{ message, field, help: null }] } };
}

/** A message id as SendGrid makes them (22 characters, URL-safe base64). */
export function sendGridMessageId(): string {
  return randomBytes(16).toString('base64url').slice(0, 22);
}

/** An address object (`{ email, name }`). */
export interface SendGridAddress {
  email: string;
  name?: string | undefined;
}

/** One personalization: its recipients, and what it overrides. */
export interface SendGridPersonalization {
  to: SendGridAddress[];
  cc: SendGridAddress[];
  bcc: SendGridAddress[];
  subject: string | undefined;
  substitutions: Record<string, string>;
  dynamicTemplateData: unknown;
  headers: Record<string, string>;
}

/** A send as read from its JSON. */
export interface SendGridSend {
  personalizations: SendGridPersonalization[];
  from: SendGridAddress;
  replyTo: SendGridAddress[];
  subject: string | undefined;
  text: string | undefined;
  html: string | undefined;
  templateId: string | undefined;
  headers: Record<string, string>;
  attachments: EmailAttachment[];
  categories: string[];
  sandbox: boolean;
  sendAt: number | undefined;
}

type Json = Record<string, unknown>;

/** The display form of an address object. */
export function addressText(address: SendGridAddress): string {
  return address.name ? `"${address.name.replace(/["\\\r\n]/g, ' ')}" <${address.email}>` : address.email;
}

function addressOf(value: unknown, field: string): SendGridAddress | SendGridAnswer {
  const json = (typeof value === 'object' && value !== null ? value : {}) as Json;
  const email = typeof json.email === 'string' ? json.email : '';
  if (!isMailAddress(email)) return sendGridError(400, 'Does not contain a valid address.', field);
  return { email, name: typeof json.name === 'string' ? json.name : undefined };
}


function addressList(value: unknown, field: string): SendGridAddress[] | SendGridAnswer {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return sendGridError(400, `The ${field.split('.').pop()} field must be an array of email objects.`, field);
  const out: SendGridAddress[] = [];
  for (const [index, item] of value.entries()) {
    const address = addressOf(item, `${field}.${index}.email`);
    if (isAnswer(address)) return address;
    out.push(address);
  }
  return out;
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, String(v)]));
}

function personalizationOf(value: unknown, index: number): SendGridPersonalization | SendGridAnswer {
  const json = (typeof value === 'object' && value !== null ? value : {}) as Json;
  const field = `personalizations.${index}`;
  const to = addressList(json.to, `${field}.to`);
  const cc = addressList(json.cc, `${field}.cc`);
  const bcc = addressList(json.bcc, `${field}.bcc`);
  for (const part of [to, cc, bcc]) if (isAnswer(part)) return part;
  if ((to as SendGridAddress[]).length === 0) return sendGridError(400, 'The to array is required for all personalization objects, and must have at least one email object with a valid email address.', `${field}.to`);
  const seen = new Set<string>();
  for (const [name, list] of [['to', to], ['cc', cc], ['bcc', bcc]] as const) {
    for (const address of list as SendGridAddress[]) {
      const key = address.email.toLowerCase();
      if (seen.has(key)) return sendGridError(400, `Each email address in the personalization block should be unique between to, cc, and bcc. We found the first duplicate instance of [${address.email}] in the ${field}.${name} field.`, `${field}.${name}`);
      seen.add(key);
    }
  }
  return {
    to: to as SendGridAddress[],
    cc: cc as SendGridAddress[],
    bcc: bcc as SendGridAddress[],
    subject: typeof json.subject === 'string' ? json.subject : undefined,
    substitutions: stringRecord(json.substitutions),
    dynamicTemplateData: json.dynamic_template_data,
    headers: stringRecord(json.headers),
  };
}

function attachmentsOf(value: unknown): EmailAttachment[] | SendGridAnswer {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return sendGridError(400, 'The attachments field must be an array.', 'attachments');
  const out: EmailAttachment[] = [];
  for (const [index, item] of (value as Json[]).entries()) {
    if (typeof item?.content !== 'string' || item.content === '') return sendGridError(400, 'The attachment content is required.', `attachments.${index}.content`);
    if (typeof item.filename !== 'string' || item.filename === '') return sendGridError(400, 'The attachment filename is required.', `attachments.${index}.filename`);
    if (!/^[A-Za-z0-9+/=\s]*$/.test(item.content)) return sendGridError(400, 'The attachment content must be base64 encoded.', `attachments.${index}.content`);
    out.push({ filename: item.filename, content: Buffer.from(item.content, 'base64'), contentType: typeof item.type === 'string' ? item.type : undefined, contentId: typeof item.content_id === 'string' ? item.content_id : undefined });
  }
  return out;
}

function contentOf(value: unknown): { text: string | undefined; html: string | undefined } | SendGridAnswer {
  if (value === undefined) return { text: undefined, html: undefined };
  if (!Array.isArray(value)) return sendGridError(400, 'The content field must be an array of { type, value }.', 'content');
  const parts = value as Json[];
  const part = (type: string) => parts.find((p) => p?.type === type && typeof p.value === 'string')?.value as string | undefined;
  if (parts.some((p) => typeof p?.value !== 'string' || p.value === '')) return sendGridError(400, 'The content value must be a string at least one character in length.', 'content.0.value');
  return { text: part('text/plain'), html: part('text/html') };
}

function sandboxOf(value: unknown): boolean {
  const settings = (typeof value === 'object' && value !== null ? value : {}) as Json;
  const sandbox = (typeof settings.sandbox_mode === 'object' && settings.sandbox_mode !== null ? settings.sandbox_mode : {}) as Json;
  return sandbox.enable === true;
}

/** Reads a send's JSON: its fields, or SendGrid's error naming the field. */
export function parseSendGridSend(body: unknown): SendGridSend | SendGridAnswer {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return sendGridError(400, 'Bad Request: the body must be a JSON object (@sendgrid/mail sends one).');
  const json = body as Json;
  if (!Array.isArray(json.personalizations) || json.personalizations.length === 0) return sendGridError(400, 'The personalizations field is required and must have at least one personalization.', 'personalizations');
  if (json.from === undefined) return sendGridError(400, 'The from object must be provided for every email send. It is an object that requires the email parameter, but may also contain a name parameter.', 'from');
  const from = addressOf(json.from, 'from.email');
  const personalizations = json.personalizations.map(personalizationOf);
  const replyTo = json.reply_to_list !== undefined ? addressList(json.reply_to_list, 'reply_to_list') : json.reply_to !== undefined ? addressList([json.reply_to], 'reply_to') : [];
  const content = contentOf(json.content);
  const attachments = attachmentsOf(json.attachments);
  for (const part of [from, ...personalizations, replyTo, content, attachments]) if (isAnswer(part)) return part;
  const templateId = typeof json.template_id === 'string' ? json.template_id : undefined;
  const { text, html } = content as { text: string | undefined; html: string | undefined };
  const subject = typeof json.subject === 'string' ? json.subject : undefined;
  const personals = personalizations as SendGridPersonalization[];
  if (!templateId && text === undefined && html === undefined) return sendGridError(400, 'Unless a valid template_id is provided, the content parameter is required. There must be at least one defined content block. We typically suggest both text/plain and text/html blocks are included, but only one block is required.', 'content');
  if (!templateId && subject === undefined && personals.some((p) => p.subject === undefined)) return sendGridError(400, 'The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined.', 'subject');
  const categories = Array.isArray(json.categories) ? json.categories.filter((c): c is string => typeof c === 'string') : [];
  if (categories.length > 10) return sendGridError(400, 'Too many categories. The maximum number of categories is 10.', 'categories');
  return {
    personalizations: personals,
    from: from as SendGridAddress,
    replyTo: replyTo as SendGridAddress[],
    subject,
    text,
    html,
    templateId,
    headers: stringRecord(json.headers),
    attachments: attachments as EmailAttachment[],
    categories,
    sandbox: sandboxOf(json.mail_settings),
    sendAt: typeof json.send_at === 'number' ? json.send_at : undefined,
  };
}

/** Replaces each substitution tag with its value (SendGrid's legacy substitutions: plain text, no escaping). */
export function substitute(text: string | undefined, substitutions: Record<string, string>): string | undefined {
  if (text === undefined) return undefined;
  let out = text;
  for (const [tag, value] of Object.entries(substitutions)) if (tag !== '') out = out.split(tag).join(value);
  return out;
}
