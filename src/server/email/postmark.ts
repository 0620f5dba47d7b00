/**
 * Postmark's Email API wire format, as its REST API documents it and the
 * `postmark` SDK reads it: a send's PascalCase fields (`From`, `To`,
 * `HtmlBody`, `TemplateAlias`, `MessageStream` …), the answer
 * `{ To, SubmittedAt, MessageID, ErrorCode: 0, Message: 'OK' }`, and the
 * error body `{ ErrorCode, Message }` (HTTP 422, 401 for a bad token) the
 * SDK throws as its `ApiInputError` family.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { addressesOf, isMailAddress } from './compose.ts';
import type { EmailAttachment, EmailToCompose } from './compose.ts';
import { isAnswer } from './answer.ts';

/** Postmark's limit of recipients per email (To, Cc and Bcc together), and of emails per batch. */
export const POSTMARK_MAX_RECIPIENTS = 50;
export const POSTMARK_MAX_BATCH = 500;

/** The token Postmark accepts for tests: every send is validated and answered, and nothing is delivered. */
export const POSTMARK_TEST_TOKEN = 'POSTMARK_API_TEST';

/** A Postmark answer: the status and its JSON body. */
export interface PostmarkAnswer {
  status: 200 | 401 | 404 | 422;
  body: unknown;
}

/** A Postmark error (`ErrorCode` as Postmark's docs list them: 300 invalid request, 406 inactive recipient, 1101 template …). */
export function postmarkError(code: number, message: string, status: PostmarkAnswer['status'] = 422): PostmarkAnswer {
  return { status, body: { ErrorCode: code, Message: message } };
}

/** Postmark's answer to one accepted email. */
export function postmarkSent(to: string, messageId: string, test: boolean): PostmarkAnswer {
  return { status: 200, body: { To: to, SubmittedAt: new Date().toISOString(), MessageID: messageId, ErrorCode: 0, Message: test ? 'Test job accepted' : 'OK' } };
}

/** A message id as Postmark makes them (a UUID). */
export function postmarkMessageId(): string {
  return randomUUID();
}

/** A send as read from its JSON. */
export interface PostmarkSend {
  email: Omit<EmailToCompose, 'providerId'>;
  /** The bare recipient addresses (To, Cc, Bcc). */
  recipients: string[];
  envelopeFrom: string;
  /** The `To` field as given (answered back). */
  to: string;
  /** The template asked for (`TemplateId` or `TemplateAlias`), with its model. */
  template: { id: string; model: unknown } | null;
}

type Json = Record<string, unknown>;

function text(json: Json, field: string): string | undefined {
  return typeof json[field] === 'string' ? (json[field] as string) : undefined;
}

function addressField(json: Json, field: string): string[] | PostmarkAnswer {
  const value = text(json, field) ?? '';
  if (value.trim() === '') return [];
  const addresses = addressesOf(value);
  const bad = addresses.find((a) => !isMailAddress(a.address));
  if (bad || addresses.length === 0) return postmarkError(300, `Invalid '${field}' address: '${bad?.address ?? value}'.`);
  return addresses.map((a) => a.address);
}


function attachmentsOf(value: unknown): EmailAttachment[] | PostmarkAnswer {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return postmarkError(300, 'Attachments must be an array of { Name, Content, ContentType }.');
  const out: EmailAttachment[] = [];
  for (const item of value as Json[]) {
    if (typeof item?.Name !== 'string' || typeof item.Content !== 'string') return postmarkError(300, 'Each attachment needs a Name and its Content in base64.');
    out.push({ filename: item.Name, content: Buffer.from(item.Content, 'base64'), contentType: text(item, 'ContentType'), contentId: text(item, 'ContentID')?.replace(/^cid:/, '') });
  }
  return out;
}

function headersOf(value: unknown): Record<string, string> {
  if (!Array.isArray(value)) return {};
  return Object.fromEntries((value as Json[]).filter((h) => typeof h?.Name === 'string').map((h) => [String(h.Name), String(h.Value ?? '')]));
}

/** The template of a template send, or null for a plain one. */
function templateOf(json: Json, withTemplate: boolean): PostmarkSend['template'] | PostmarkAnswer {
  if (!withTemplate) return null;
  const id = json.TemplateId !== undefined && json.TemplateId !== null ? String(json.TemplateId) : text(json, 'TemplateAlias');
  if (!id) return postmarkError(1101, "The 'TemplateId' or 'TemplateAlias' associated with this request is missing.");
  return { id, model: json.TemplateModel ?? {} };
}

/** Reads a send's JSON (`/email`, or `/email/withTemplate` when `withTemplate`), or Postmark's error. */
export function parsePostmarkSend(body: unknown, withTemplate: boolean): PostmarkSend | PostmarkAnswer {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return postmarkError(402, 'Received invalid JSON input.');
  const json = body as Json;
  const from = addressesOf(text(json, 'From') ?? '');
  if (from.length !== 1 || !from[0] || !isMailAddress(from[0].address)) return postmarkError(300, `Invalid 'From' address: '${text(json, 'From') ?? ''}'.`);
  const fields = { To: addressField(json, 'To'), Cc: addressField(json, 'Cc'), Bcc: addressField(json, 'Bcc'), ReplyTo: addressField(json, 'ReplyTo') };
  const attachments = attachmentsOf(json.Attachments);
  const template = templateOf(json, withTemplate);
  for (const part of [...Object.values(fields), attachments, template]) if (isAnswer(part)) return part;
  const recipients = [...(fields.To as string[]), ...(fields.Cc as string[]), ...(fields.Bcc as string[])];
  if (recipients.length === 0) return postmarkError(300, 'Zero recipients specified');
  if (recipients.length > POSTMARK_MAX_RECIPIENTS) return postmarkError(300, `Too many recipients: at most ${POSTMARK_MAX_RECIPIENTS} in To, Cc and Bcc together.`);
  const [html, plain] = [text(json, 'HtmlBody'), text(json, 'TextBody')];
  if (!withTemplate && html === undefined && plain === undefined) return postmarkError(300, 'Provide either email TextBody or HtmlBody or both.');
  const stream = text(json, 'MessageStream') ?? 'outbound';
  const tag = text(json, 'Tag');
  return {
    email: {
      provider: 'postmark',
      from: text(json, 'From') ?? '',
      to: addressesOf(text(json, 'To') ?? '').map((a) => (a.name ? `"${a.name}" <${a.address}>` : a.address)),
      cc: fields.Cc as string[],
      replyTo: fields.ReplyTo as string[],
      subject: text(json, 'Subject') ?? '',
      text: plain,
      html,
      headers: headersOf(json.Headers),
      attachments: attachments as EmailAttachment[],
      tags: [...(tag ? [tag] : []), `message-stream=${stream}`],
    },
    recipients,
    envelopeFrom: from[0].address,
    to: text(json, 'To') ?? '',
    template: template as PostmarkSend['template'],
  };
}
