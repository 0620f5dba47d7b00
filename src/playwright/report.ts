/**
 * What the fixtures put in the Playwright report: a received email as four
 * attachments (the sanitized HTML rendered as a page, the text, the headers,
 * the raw `.eml`). Nothing here ever sees a credential: the attachments are made
 * from the message alone.
 *
 * @packageDocumentation
 */
import type { TestInfo } from '@playwright/test';
import { formatAddress } from '../client/internal/format.ts';
import { readerText } from './reader-text.ts';
import type { Message } from '../client/index.ts';

/** The parts of a message an attachment is made from. */
type ReportableMessage = Pick<Message, 'subject' | 'from' | 'to' | 'cc' | 'receivedAt' | 'html' | 'text' | 'headers'>;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * A self-contained HTML page showing a message: a header block (from, to,
 * subject, date; left out with `header: false`) above the sanitized HTML body
 * (or the text body). Its
 * Content-Security-Policy lets the page load nothing but inline styles and
 * `data:` images, so opening the attachment from a report sends no request
 * (no tracking pixel fires, no remote image loads).
 */
export function renderEmailDocument(message: ReportableMessage, options: { header?: boolean } = {}): string {
  const rows: Array<[string, string]> = [
    ['From', formatAddress(message.from)],
    ['To', message.to.map((a) => formatAddress(a)).join(', ') || '(none)'],
    ...(message.cc.length > 0 ? ([['Cc', message.cc.map((a) => formatAddress(a)).join(', ')]] as Array<[string, string]>) : []),
    ['Subject', message.subject || '(no subject)'],
    ['Date', message.receivedAt],
  ];
  const header = rows
    .map(([name, value]) => `<tr><th style="text-align:left;padding:2px 12px 2px 0;color:#555">${name}</th><td>${escapeHtml(value)}</td></tr>`)
    .join('');
  const body =
    message.html !== null && message.html !== undefined
      ? message.html
      : `<pre style="white-space:pre-wrap;font:14px/1.4 ui-monospace,monospace">${escapeHtml(message.text ?? '(this message has no body)')}</pre>`;
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:">`,
    `<title>${escapeHtml(message.subject || '(no subject)')}</title></head><body style="margin:0">`,
    ...(options.header === false
      ? []
      : [`<table style="font:13px system-ui,sans-serif;margin:12px;border-collapse:collapse">${header}</table>`, '<hr style="border:0;border-top:1px solid #ddd;margin:0">']),
    `<div>${body}</div>`,
    '</body></html>',
  ].join('\n');
}

/**
 * A short, single-line title of a message for attachment names: its
 * subject, or for an SMS (which has none) the start of its text in quotes;
 * at most 60 characters.
 */
export function messageTitle(message: Pick<Message, 'subject'> & { text?: string | null }): string {
  const subject = (message.subject ?? '').replace(/\s+/g, ' ').trim();
  const text = (message.text ?? '').replace(/\s+/g, ' ').trim();
  const title = subject || (text ? `"${text.length > 57 ? `${text.slice(0, 56)}…` : text}"` : '(no subject)');
  return title.length > 60 ? `${title.slice(0, 59)}…` : title;
}

/**
 * Attaches a message to the running test as `<label>.html` (the email
 * itself, rendered, without a header table of inboxkit's), `<label>.txt` (the text as a reader sees it, see reader-text.ts), `<label>.headers.json` and, when `raw` is given,
 * `<label>.eml` (`message/rfc822`; see {@link attachRawSource} to add it later).
 */
export async function attachMessage(testInfo: TestInfo, label: string, message: ReportableMessage, raw: Uint8Array | null): Promise<void> {
  // The email itself, as a reader sees it: its headers are the .headers.json beside it.
  await testInfo.attach(`${label}.html`, { body: renderEmailDocument(message, { header: false }), contentType: 'text/html' });
  if (message.text !== null && message.text !== undefined) {
    // As a reader sees it (invisible preheader filler dropped); Playwright prints it under a failure.
    await testInfo.attach(`${label}.txt`, { body: readerText(message.text), contentType: 'text/plain' });
  }
  await testInfo.attach(`${label}.headers.json`, { body: JSON.stringify(message.headers, null, 2), contentType: 'application/json' });
  if (raw !== null) await attachRawSource(testInfo, label, raw);
}

/** Attaches a message's raw source to the running test as `<label>.eml` (`message/rfc822`). */
export async function attachRawSource(testInfo: TestInfo, label: string, raw: Uint8Array): Promise<void> {
  await testInfo.attach(`${label}.eml`, { body: Buffer.from(raw), contentType: 'message/rfc822' });
}
