/**
 * The messages the benchmark sends: a 10 KB transactional HTML email, with or
 * without a 100 KB PDF-like attachment, built once as raw MIME so that the
 * senders spend their time on SMTP, not on composing.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';

/** About 10 KB of table-layout HTML, like an email builder produces. */
export function transactionalHtml(targetBytes = 10 * 1024): string {
  const head = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Confirm your address</title></head>
<body style="margin:0;padding:0;background:#f4f4f4;font-family:Helvetica,Arial,sans-serif">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td align="center">
<table width="600" cellpadding="0" cellspacing="0" border="0" bgcolor="#ffffff">
<tr><td style="padding:24px"><h1 style="font-size:22px;color:#222">Confirm your address</h1>
<p style="font-size:15px;line-height:22px;color:#444">Hi Alice, your code is <strong>482913</strong>.</p>
<a href="https://app.example.test/verify?token=eyJhbGciOiJIUzI1NiJ9.abc&amp;user=42" style="color:#1a73e8">Confirm</a></td></tr>\n`;
  const row = (i: number) =>
    `<tr><td style="padding:12px 32px;border-top:1px solid #eeeeee"><img src="https://cdn.example.test/p/${i}.png" alt="Product ${i}" width="80" height="80">` +
    `<p style="margin:8px 0;font-size:14px;color:#333">Item ${i}: marketing text with <a href="https://shop.example.test/p/${i}?ref=mail">a link</a>.</p></td></tr>\n`;
  const foot = `<tr><td align="center" style="padding:24px;font-size:12px;color:#999"><a href="https://example.test/unsubscribe?u=42">Unsubscribe</a></td></tr>
</table></td></tr></table></body></html>`;
  let rows = '';
  for (let i = 1; head.length + rows.length + foot.length < targetBytes; i++) rows += row(i);
  return head + rows + foot;
}

/** What a benchmark message is made of. */
export interface MailSpec {
  from: string;
  to: string;
  subject: string;
  html: string;
  /** A binary attachment of this many bytes (none when 0). */
  attachmentBytes?: number;
}

/** The nodemailer message of a spec (for senders that compose per message, as applications do). */
export function nodemailerMessage(spec: MailSpec, attachment?: Buffer): Mail.Options {
  return {
    from: spec.from,
    to: spec.to,
    subject: spec.subject,
    html: spec.html,
    text: 'Hi Alice, your code is 482913. Confirm: https://app.example.test/verify?token=abc',
    ...(attachment ? { attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', content: attachment }] } : {}),
  };
}

/** Builds the raw MIME of a spec once. */
export async function buildRaw(spec: MailSpec): Promise<Buffer> {
  const attachment = spec.attachmentBytes ? randomBytes(spec.attachmentBytes) : undefined;
  const composer = new MailComposer(nodemailerMessage(spec, attachment));
  return composer.compile().build();
}
