/**
 * The content rules: what mailbox providers and email clients enforce on a
 * message's headers and HTML, each with an id, a one-line why and a fix. The
 * checks themselves are in `content-checks.ts`.
 *
 * @packageDocumentation
 */

/** How much a finding matters: `error` fails `toPassContentChecks`, `warning` too unless ignored. */
export type ContentSeverity = 'error' | 'warning';

/** A content rule: its id, why it matters, and how to fix a message that breaks it. */
export interface ContentRule {
  /** The rule's id, as findings and `ignore` name it. */
  id: ContentRuleId;
  /** The severity of its findings. */
  severity: ContentSeverity;
  /** One line: why mailbox providers or clients care. */
  why: string;
  /** One line: what to change. */
  fix: string;
}

/** Gmail clips a message whose HTML is larger than about 102 KB, hiding the rest behind "View entire message". */
export const GMAIL_CLIP_BYTES = 102 * 1024;

/** The rules' table: id, severity, why, fix. A new rule is one row here and its check in `content-checks.ts`. */
const TABLE = [
  ['list-unsubscribe', 'error', 'Gmail and Yahoo require bulk senders (since 2024) to offer unsubscribing in the List-Unsubscribe header; without it, mail is rejected or filed as spam.', 'Add `List-Unsubscribe: <https://app.example/unsubscribe?token=…>, <mailto:unsubscribe@app.example>` to bulk mail.'],
  ['list-unsubscribe-syntax', 'error', 'A List-Unsubscribe header that is not a list of <URI>s (RFC 2369) is ignored by mailbox providers.', 'Write it as comma-separated URIs in angle brackets, each https: or mailto:, e.g. `<https://app.example/u/123>, <mailto:u@app.example>`.'],
  ['one-click-unsubscribe', 'error', 'Gmail and Yahoo require one-click unsubscribe (RFC 8058) for bulk mail: an https List-Unsubscribe URI and `List-Unsubscribe-Post: List-Unsubscribe=One-Click`.', 'Add `List-Unsubscribe-Post: List-Unsubscribe=One-Click` and an https URI that unsubscribes on a POST, without a login or a page.'],
  ['img-alt', 'warning', 'Most clients block images by default; an image without alt text shows as an empty box, and screen readers read its file name.', 'Give every <img> an alt attribute: a short description, or alt="" for a decorative image.'],
  ['html-size', 'error', `Gmail clips HTML over about 102 KB (${GMAIL_CLIP_BYTES} bytes): the rest, often the unsubscribe link and tracking pixel, is hidden behind "View entire message".`, 'Trim the HTML: inline less CSS, drop comments and unused markup, link to long content instead of including it.'],
  ['text-part', 'warning', 'An HTML-only message scores as spam with several filters and is unreadable in text-only clients and previews.', 'Send a text/plain alternative alongside the HTML (multipart/alternative; nodemailer: the `text` option).'],
  ['script', 'error', 'Every email client removes <script>; spam filters score it, and some providers reject the message.', 'Remove the scripts; anything interactive belongs on a page the email links to.'],
  ['form', 'warning', 'Most clients disable or strip <form> (Gmail warns about it); a form in an email rarely submits.', 'Replace the form with a link or button to a page that has it.'],
  ['external-stylesheet', 'error', 'Clients do not load external stylesheets (<link rel="stylesheet">, @import): the message renders unstyled.', 'Inline the CSS (style attributes or a <style> block in the HTML).'],
  ['link-element', 'warning', 'Clients drop <link> elements (fonts, icons, preloads); what they load never arrives.', 'Remove the <link> elements; use web-safe font stacks and inline what you need.'],
  ['plain-http-link', 'warning', 'Links over plain http are flagged by some providers and browsers warn on them; a tracking redirect over http leaks the click.', 'Link over https.'],
  ['date-header', 'error', 'A message without a valid Date header (RFC 5322) is scored as spam, and clients sort it wrongly.', 'Let the mail library set Date, or set it as an RFC 5322 date, e.g. `Tue, 1 Jul 2025 10:00:00 +0000`.'],
  ['message-id-header', 'error', 'A missing or malformed Message-ID is scored as spam and breaks threading and duplicate detection.', 'Let the mail library set Message-ID, or set it as `<unique@your-domain>`.'],
  ['from-header', 'error', 'The From header is what DMARC aligns and what users trust; one that is missing, has several mailboxes or no domain is rejected by major providers.', 'Set From to exactly one mailbox of your sending domain, e.g. `Acme <hello@acme.example>`.'],
] as const satisfies ReadonlyArray<readonly [string, ContentSeverity, string, string]>;

/** The id of a content rule: `'img-alt'`, `'list-unsubscribe'`, … (see {@link CONTENT_RULES}). */
export type ContentRuleId = (typeof TABLE)[number][0];

/** Every content rule, by id. */
export const CONTENT_RULES: Readonly<Record<ContentRuleId, ContentRule>> = Object.fromEntries(TABLE.map(([id, severity, why, fix]) => [id, { id, severity, why, fix }])) as Record<ContentRuleId, ContentRule>;
