/**
 * The MIME an email provider's send becomes: its JSON or form fields
 * composed with nodemailer's `MailComposer`, so the intake parses and
 * sanitizes it exactly as it does mail that came over SMTP (links, codes,
 * checks work alike). The composed message says how it came: the provider
 * (`X-Inboxkit-Via`), the id its API answered, its tags, its template and
 * template data.
 *
 * @packageDocumentation
 */
import MailComposer from 'nodemailer/lib/mail-composer';
import addressparser from 'nodemailer/lib/addressparser';
import { EMAIL_TEMPLATE_DATA_HEADER, EMAIL_TEMPLATE_HEADER, EMAIL_VIA_HEADER, EMAIL_VIA_ID_HEADER } from '../../wire/providers.ts';

/** An attachment of a send, its content decoded. */
export interface EmailAttachment {
  filename: string;
  content: Uint8Array;
  contentType?: string | undefined;
  /** The content id an inline image is referenced by (`cid:`). */
  contentId?: string | undefined;
}

/** A send's fields, as each provider's adapter reads them. */
export interface EmailToCompose {
  /** The provider's id (its row in `wire/providers.ts`). */
  provider: string;
  /** The id the provider's API answers for this email. */
  providerId: string;
  from: string;
  to: string[];
  cc: string[];
  replyTo: string[];
  subject: string;
  text?: string | undefined;
  html?: string | undefined;
  /** The app's own headers. */
  headers: Record<string, string>;
  attachments: EmailAttachment[];
  /** Tags or categories (`name=value`, or a category's name). */
  tags: string[];
  /** The template the email was sent by, and its data. */
  template?: { id: string; data: unknown } | undefined;
  /** When the app asked for it to be sent (Resend's `scheduled_at` …): recorded; it is delivered at once. */
  scheduledAt?: string | undefined;
}

/** The longest template data kept in its header, in characters. */
const MAX_TEMPLATE_DATA_CHARS = 8 * 1024;

/** A mail address: a bare address, its display name apart. */
export interface MailAddress {
  name: string;
  address: string;
}

/** The addresses of a header value or a list of them (groups flattened); an empty list for none. */
export function addressesOf(value: string | readonly string[] | undefined | null): MailAddress[] {
  const values = value === undefined || value === null ? [] : typeof value === 'string' ? [value] : value;
  const out: MailAddress[] = [];
  for (const one of values) {
    for (const parsed of addressparser(String(one), { flatten: true })) out.push({ name: parsed.name, address: parsed.address });
  }
  return out;
}

/** Whether a bare address looks like one (`local@domain`, no spaces or brackets). */
export function isMailAddress(address: string): boolean {
  return /^[^\s@<>(),;:"]+@[^\s@<>(),;:"[\]]+$/.test(address) && address.length <= 320;
}

/** A header value on one line. */
function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

/** The headers the service adds, saying how the email came; the app's own `X-Inboxkit-*` headers are dropped, never trusted. */
function inboxkitHeaders(email: EmailToCompose): Array<{ key: string; value: string }> {
  const headers = [
    { key: EMAIL_VIA_HEADER, value: email.provider },
    { key: EMAIL_VIA_ID_HEADER, value: oneLine(email.providerId) },
  ];
  for (const tag of email.tags) headers.push({ key: 'x-inboxkit-tag', value: oneLine(tag) });
  if (email.template) {
    headers.push({ key: EMAIL_TEMPLATE_HEADER, value: oneLine(email.template.id) });
    const data = JSON.stringify(email.template.data ?? null);
    headers.push({ key: EMAIL_TEMPLATE_DATA_HEADER, value: data.length > MAX_TEMPLATE_DATA_CHARS ? `${data.slice(0, MAX_TEMPLATE_DATA_CHARS)}…` : data });
  }
  if (email.scheduledAt) headers.push({ key: 'x-inboxkit-scheduled-at', value: oneLine(email.scheduledAt) });
  return headers;
}

/** The app's headers, on one line each, without the service's own. */
function appHeaders(headers: Record<string, string>): Array<{ key: string; value: string }> {
  return Object.entries(headers)
    .filter(([key]) => /^[!-9;-~]+$/.test(key) && !/^x-inboxkit-/i.test(key))
    .map(([key, value]) => ({ key, value: oneLine(String(value)) }));
}

/** The body of a template send the service could not render (no such template registered): its id and data, readable. */
function unrenderedBody(email: EmailToCompose): string | undefined {
  if (email.text !== undefined || email.html !== undefined || !email.template) return email.text;
  return `Sent by template ${email.template.id}, which is not registered with this inboxkit service, with this data:\n\n${JSON.stringify(email.template.data ?? null, null, 2)}\n`;
}

/** Composes a send into MIME (RFC 5322), as an SMTP client would have sent it. */
export async function composeEmail(email: EmailToCompose): Promise<Uint8Array> {
  const text = unrenderedBody(email);
  const composer = new MailComposer({
    from: email.from,
    to: email.to,
    cc: email.cc,
    replyTo: email.replyTo,
    subject: email.subject,
    ...(text !== undefined ? { text } : {}),
    ...(email.html !== undefined ? { html: email.html } : {}),
    headers: [...appHeaders(email.headers), ...inboxkitHeaders(email)],
    attachments: email.attachments.map((a) => ({
      filename: a.filename,
      content: Buffer.from(a.content),
      ...(a.contentType ? { contentType: a.contentType } : {}),
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return new Uint8Array(await composer.compile().build());
}

/**
 * A MIME message sent whole (SES `Raw`, Mailgun `messages.mime`) with the
 * service's headers in front: how it came and its id. The app's own
 * `X-Inboxkit-*` lines are left as sent, below the service's.
 */
export function stampRaw(raw: Uint8Array, provider: string, providerId: string): Uint8Array {
  const stamp = Buffer.from(`X-Inboxkit-Via: ${oneLine(provider)}\r\nX-Inboxkit-Via-Id: ${oneLine(providerId)}\r\n`);
  return new Uint8Array(Buffer.concat([stamp, Buffer.from(raw)]));
}
