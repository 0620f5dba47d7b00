/**
 * Transactional email templates in the style real services send: table layout,
 * inline styles, a logo block (inline `cid:` image), a footer, and a plain-text
 * alternative. Lines are deliberately long so quoted-printable soft line breaks
 * land inside the links.
 */
import { appUrl, escapeHtml } from './html.ts';
import { buildInvoicePdf, formatAmount, invoiceTotalCents, type InvoiceDocument } from './pdf.ts';
import { renderLogoPng } from './png.ts';

/** One attachment of an email, inline (`cid`) or regular. */
export interface EmailAttachment {
  /** File name shown by mail clients. */
  filename: string;
  /** The file's bytes. */
  content: Buffer;
  /** MIME type, e.g. `application/pdf`. */
  contentType: string;
  /** Content-ID for inline images referenced as `cid:…` from the HTML. */
  cid?: string;
}

/** A rendered email, ready to hand to nodemailer. */
export interface EmailContent {
  /** Subject line. */
  subject: string;
  /** HTML part. */
  html: string;
  /** Plain-text part. */
  text: string;
  /** Inline images and attachments. */
  attachments: EmailAttachment[];
  /** Extra headers (e.g. `List-Unsubscribe`). */
  headers?: Record<string, string>;
  /** Whether the mailer signs it with the app's DKIM key (see dkim.ts). */
  dkim?: boolean;
}

/** The Content-ID of the logo image every template embeds. */
export const LOGO_CID = 'logo@acme.example';

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const BRAND = '#4F46E5';

interface LayoutParts {
  title: string;
  preheader: string;
  body: string;
  footer?: string;
}

function layout(parts: LayoutParts): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="x-apple-disable-message-reformatting">
<title>${escapeHtml(parts.title)}</title>
<style>
  body { margin: 0; padding: 0; -webkit-text-size-adjust: 100%; }
  a.button:hover { background-color: #1A2B3C !important; border-color: #1A2B3C !important; }
  @media only screen and (max-width: 620px) { .container { width: 100% !important; } .content { padding: 24px 16px !important; } }
</style>
</head>
<body style="margin:0;padding:0;background-color:#F4F5F7;">
<div style="display:none;font-size:1px;color:#F4F5F7;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;">${escapeHtml(parts.preheader)}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#F4F5F7;">
<tr>
<td align="center" style="padding:24px 12px;">
<table role="presentation" class="container" width="600" cellpadding="0" cellspacing="0" border="0" style="width:600px;max-width:600px;background-color:#FFFFFF;border-radius:8px;overflow:hidden;">
<tr>
<td style="padding:20px 32px;background-color:${BRAND};"><img src="cid:${LOGO_CID}" width="96" height="32" alt="Acme" style="display:block;border:0;outline:none;text-decoration:none;"></td>
</tr>
<tr>
<td class="content" style="padding:32px;font-family:${FONT};font-size:16px;line-height:24px;color:#1F2937;">
${parts.body}
</td>
</tr>
<tr>
<td style="padding:20px 32px;background-color:#F9FAFB;font-family:${FONT};font-size:12px;line-height:18px;color:#6B7280;">
${parts.footer ?? ''}
<p style="margin:8px 0 0 0;">© 2026 Acme Inc. · 1 Example Way, Springfield · You are receiving this email because of an action on your Acme account.</p>
</td>
</tr>
</table>
</td>
</tr>
</table>
</body>
</html>
`;
}

function button(href: string, label: string): string {
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:24px 0;"><tr><td align="center" bgcolor="${BRAND}" style="border-radius:6px;background-color:${BRAND};"><a href="${escapeHtml(href)}" class="button" target="_blank" style="display:inline-block;padding:12px 24px;font-family:${FONT};font-size:16px;font-weight:bold;color:#FFFFFF;text-decoration:none;border:1px solid ${BRAND};border-radius:6px;">${escapeHtml(label)}</a></td></tr></table>`;
}

function paragraph(html: string): string {
  return `<p style="margin:0 0 16px 0;">${html}</p>`;
}

function pasteLink(href: string): string {
  return `<p style="margin:0 0 16px 0;font-size:13px;line-height:20px;color:#6B7280;">Button not working? Paste this link into your browser: <a href="${escapeHtml(href)}" target="_blank" style="color:${BRAND};word-break:break-all;">${escapeHtml(href)}</a></p>`;
}

function logo(): EmailAttachment {
  return { filename: 'acme-logo.png', content: renderLogoPng(), contentType: 'image/png', cid: LOGO_CID };
}

function longDate(date: Date): string {
  return date.toLocaleString('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';
}

/**
 * "Confirm your email": the sign-up magic link.
 *
 * @param link - absolute `/confirm?token=…&email=…` URL
 */
export function confirmEmail(link: string): EmailContent {
  const body = [
    `<h1 style="margin:0 0 16px 0;font-size:24px;line-height:32px;">Confirm your email address</h1>`,
    paragraph('Thanks for signing up for Acme! Please confirm that this is your email address so we can finish setting up your account.'),
    button(link, 'Confirm email'),
    pasteLink(link),
    paragraph(`If you didn't create an Acme account, you can safely ignore this email.`),
  ].join('\n');
  return {
    subject: 'Confirm your email',
    html: layout({ title: 'Confirm your email', preheader: 'One click and your Acme account is ready.', body }),
    text: `Confirm your email address\n\nThanks for signing up for Acme! Open this link to confirm your email address:\n\n${link}\n\nIf you didn't create an Acme account, you can safely ignore this email.\n\n-- \nAcme Inc. · 1 Example Way, Springfield\n`,
    attachments: [logo()],
    // The one email the app signs (DKIM), for the authentication examples.
    dkim: true,
  };
}

/** Details printed around the sign-in code (the distractors a code extractor must ignore). */
export interface SignInCodeDetails {
  /** The 6-digit code. */
  code: string;
  /** When the code was requested. */
  requestedAt: Date;
  /** How long the code stays valid, in words (`10 minutes`). */
  validFor: string;
  /** A request reference such as `REF-20261122-4471`. */
  reference: string;
}

/** "Your sign-in code": a 6-digit one-time code among other numbers. */
export function signInCodeEmail(details: SignInCodeDetails): EmailContent {
  const { code, requestedAt, validFor, reference } = details;
  const body = [
    `<h1 style="margin:0 0 16px 0;font-size:24px;line-height:32px;">Your sign-in code</h1>`,
    paragraph(`Use the code below to sign in to Acme. It expires in ${validFor} and can be used once.`),
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:24px 0;"><tr><td style="padding:16px 24px;background-color:#EEF2FF;border:1px solid #C7D2FE;border-radius:8px;font-family:'SFMono-Regular',Menlo,Consolas,monospace;font-size:32px;line-height:40px;font-weight:bold;letter-spacing:8px;color:#1A2B3C;">${code}</td></tr></table>`,
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="width:100%;margin:0 0 16px 0;font-size:13px;line-height:20px;color:#4B5563;">`,
    `<tr><td style="padding:4px 0;width:40%;">Requested</td><td style="padding:4px 0;">${escapeHtml(longDate(requestedAt))}</td></tr>`,
    `<tr><td style="padding:4px 0;">Request reference</td><td style="padding:4px 0;">${escapeHtml(reference)}</td></tr>`,
    `<tr><td style="padding:4px 0;">Device</td><td style="padding:4px 0;">Chrome 131 on Linux · 192.0.2.44</td></tr>`,
    `</table>`,
    paragraph(`If you didn't try to sign in, you can ignore this email: nobody can sign in without the code.`),
  ].join('\n');
  const footer = `<p style="margin:0;">Need help? Call us on +1 (415) 555-0134 (Mon–Fri, 9:00–17:00 PT) or reply to this email.</p>`;
  return {
    subject: 'Your sign-in code',
    html: layout({ title: 'Your sign-in code', preheader: `Your Acme sign-in code expires in ${validFor}.`, body, footer }),
    text: `Your sign-in code\n\nUse this code to sign in to Acme: ${code}\n\nIt expires in ${validFor} and can be used once.\nRequested: ${longDate(requestedAt)}\nRequest reference: ${reference}\n\nNeed help? Call us on +1 (415) 555-0134.\n`,
    attachments: [logo()],
  };
}

/** "Reset your password": a link that expires after `validFor` (in words, e.g. `15 minutes`). */
export function resetPasswordEmail(link: string, validFor: string): EmailContent {
  const body = [
    `<h1 style="margin:0 0 16px 0;font-size:24px;line-height:32px;">Reset your password</h1>`,
    paragraph('We received a request to reset the password of your Acme account. Choose a new password with the button below.'),
    button(link, 'Reset password'),
    pasteLink(link),
    paragraph(`This link expires in ${validFor} and works once. If you didn't ask for a new password, ignore this email: your password stays the same.`),
  ].join('\n');
  return {
    subject: 'Reset your password',
    html: layout({ title: 'Reset your password', preheader: `This link expires in ${validFor}.`, body }),
    text: `Reset your password\n\nOpen this link to choose a new password for your Acme account:\n\n${link}\n\nThis link expires in ${validFor} and works once.\n`,
    attachments: [logo()],
  };
}

/** The invoice email with its hand-built PDF attached as `invoice-<n>.pdf`. */
export function invoiceEmail(invoice: InvoiceDocument, fileNumber: number, billingLink: string): EmailContent {
  const total = `${invoice.currency} ${formatAmount(invoiceTotalCents(invoice))}`;
  const rows = invoice.lines
    .map((line) => `<tr><td style="padding:8px 0;border-bottom:1px solid #E5E7EB;">${escapeHtml(line.description)}</td><td align="right" style="padding:8px 0;border-bottom:1px solid #E5E7EB;">${escapeHtml(`${invoice.currency} ${formatAmount(line.amountCents)}`)}</td></tr>`)
    .join('\n');
  const body = [
    `<h1 style="margin:0 0 16px 0;font-size:24px;line-height:32px;">Invoice ${escapeHtml(invoice.number)}</h1>`,
    paragraph(`Thanks for your payment. Your invoice ${escapeHtml(invoice.number)} for <strong>${escapeHtml(total)}</strong> is attached as a PDF.`),
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="width:100%;margin:0 0 16px 0;font-size:14px;line-height:20px;">`,
    rows,
    `<tr><td style="padding:8px 0;font-weight:bold;">Amount due</td><td align="right" style="padding:8px 0;font-weight:bold;">${escapeHtml(total)}</td></tr>`,
    `</table>`,
    button(billingLink, 'View billing'),
  ].join('\n');
  return {
    subject: `Your Acme invoice ${invoice.number}`,
    html: layout({ title: `Invoice ${invoice.number}`, preheader: `Invoice ${invoice.number}: ${total}`, body }),
    text: `Invoice ${invoice.number}\n\nThanks for your payment. Your invoice ${invoice.number} for ${total} is attached as a PDF.\n\nView billing: ${billingLink}\n`,
    attachments: [
      logo(),
      { filename: `invoice-${fileNumber}.pdf`, content: buildInvoicePdf(invoice), contentType: 'application/pdf' },
    ],
  };
}

/** One story in the newsletter. */
export interface NewsletterStory {
  /** Headline. */
  title: string;
  /** One-paragraph teaser. */
  teaser: string;
  /** Where "Read more" leads, already wrapped in the tracking redirect. */
  trackedHref: string;
}

/** Links of the newsletter that are not stories. */
export interface NewsletterLinks {
  /** The unsubscribe page (never tracking-wrapped). */
  unsubscribe: string;
  /** A tracking-wrapped link shown as text, SafeLinks-style, in the footer. */
  safeLinksText: string;
  /** "Past issues": a page the app does not have (a broken link for the link-check example). */
  archive: string;
}

/** The HTML newsletter: stories whose links go through the app's click tracker. */
export function newsletterEmail(stories: readonly NewsletterStory[], links: NewsletterLinks): EmailContent {
  const storyHtml = stories
    .map((s) => [
      `<h2 style="margin:24px 0 8px 0;font-size:20px;line-height:28px;"><a href="${escapeHtml(s.trackedHref)}" target="_blank" style="color:#111827;text-decoration:none;">${escapeHtml(s.title)}</a></h2>`,
      paragraph(escapeHtml(s.teaser)),
      `<p style="margin:0 0 16px 0;"><a href="${escapeHtml(s.trackedHref)}" target="_blank" style="color:${BRAND};font-weight:bold;">Read more →</a></p>`,
    ].join('\n'))
    .join('\n');
  const body = [
    `<h1 style="margin:0 0 8px 0;font-size:28px;line-height:36px;">Acme Weekly</h1>`,
    paragraph('The week at Acme: what shipped, what changed, and what is next.'),
    storyHtml,
  ].join('\n');
  const footer = [
    `<p style="margin:0 0 8px 0;word-break:break-all;">Protected link (as rewritten by your mail provider): ${escapeHtml(links.safeLinksText)}</p>`,
    `<p style="margin:0 0 8px 0;"><a href="${escapeHtml(links.archive)}" target="_blank" style="color:#6B7280;">Past issues</a></p>`,
    `<p style="margin:0;">Don't want these emails? <a href="${escapeHtml(links.unsubscribe)}" target="_blank" style="color:#6B7280;">Unsubscribe</a> at any time.</p>`,
  ].join('\n');
  const text = [
    'Acme Weekly',
    '',
    ...stories.flatMap((s) => [s.title, s.teaser, `Read more: ${s.trackedHref}`, '']),
    `Unsubscribe: ${links.unsubscribe}`,
    '',
  ].join('\n');
  return {
    subject: 'Acme Weekly — faster builds, simpler pricing',
    html: layout({ title: 'Acme Weekly', preheader: 'Faster builds, simpler pricing, and a changelog worth reading.', body, footer }),
    text,
    attachments: [logo()],
    headers: {
      'List-Unsubscribe': `<${links.unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}

/**
 * Wraps `target` the way Microsoft SafeLinks rewrites URLs, for the footer text.
 *
 * @example safeLinksWrap('https://acme.example/') // 'https://nam12.safelinks.protection.outlook.com/?url=https%3A%2F%2F…'
 */
export function safeLinksWrap(target: string): string {
  return appUrl('https://nam12.safelinks.protection.outlook.com', '/', {
    url: target,
    data: '05|02|reader@example.com|4f2a|72f988bf|0|0|638679',
    sdata: 'q2Xb7Vx8n4Zr0PpA1k3L9sJ+wT5yY6uE=',
    reserved: '0',
  });
}
