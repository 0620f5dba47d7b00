/**
 * What the fixtures put in the Playwright report: a received email as four
 * attachments (the sanitized HTML rendered as a page, the text, the headers,
 * the raw `.eml`), and the test's messages together on one page, the one
 * attachment a terminal reporter lists. Nothing here ever sees a credential: the attachments are made
 * from the message alone.
 *
 * @packageDocumentation
 */
import { writeFile } from 'node:fs/promises';
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

/** A message's sender, recipients, subject and date, as name and value (unescaped), for a header table. */
function headerRows(message: ReportableMessage): Array<[string, string]> {
  return [
    ['From', formatAddress(message.from)],
    ['To', message.to.map((a) => formatAddress(a)).join(', ') || '(none)'],
    ...(message.cc.length > 0 ? ([['Cc', message.cc.map((a) => formatAddress(a)).join(', ')]] as Array<[string, string]>) : []),
    ['Subject', message.subject || '(no subject)'],
    ['Date', message.receivedAt],
  ];
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
  const header = headerRows(message)
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
 * The content type of a message's files in the report: files to open or
 * download from it, which no terminal reporter prints. Playwright's list and
 * line reporters print the body of every `text/*` attachment under a failure,
 * which for a few emails is screens of HTML; the test's one message index
 * ({@link MessageIndex}) is what the terminal lists instead, in one entry.
 */
const REPORT_FILE = 'application/octet-stream';

/**
 * Attaches a message to the running test as `<label>.html` (the email
 * itself, rendered, without a header table of inboxkit's), `<label>.txt` (the text as a reader sees it, see reader-text.ts), `<label>.headers.json` and, when `raw` is given,
 * `<label>.eml` (`message/rfc822`; see {@link attachRawSource} to add it later),
 * and adds it to the test's message index, attached when the test ends.
 */
export async function attachMessage(testInfo: TestInfo, label: string, message: ReportableMessage, raw: Uint8Array | null, indexed: { index: MessageIndex; kind: MessageKind }): Promise<void> {
  indexed.index.add(label, message, indexed.kind);
  // The email itself, as a reader sees it: its headers are the .headers.json beside it.
  await testInfo.attach(`${label}.html`, { body: renderEmailDocument(message, { header: false }), contentType: REPORT_FILE });
  if (message.text !== null && message.text !== undefined) {
    // As a reader sees it (invisible preheader filler dropped).
    await testInfo.attach(`${label}.txt`, { body: readerText(message.text), contentType: REPORT_FILE });
  }
  await testInfo.attach(`${label}.headers.json`, { body: JSON.stringify(message.headers, null, 2), contentType: 'application/json' });
  if (raw !== null) await attachRawSource(testInfo, label, raw);
}

/** Attaches a message's raw source to the running test as `<label>.eml` (`message/rfc822`). */
export async function attachRawSource(testInfo: TestInfo, label: string, raw: Uint8Array): Promise<void> {
  await testInfo.attach(`${label}.eml`, { body: Buffer.from(raw), contentType: 'message/rfc822' });
}

/** What a message is, for the index's name: an email, or an SMS (a phone's). */
export type MessageKind = 'email' | 'SMS';

/** The longest name of a message index attachment (the terminal prints it on one line). */
const INDEX_NAME_MAX = 160;

/**
 * The messages one test attached, shown together on one page: the test's one
 * `text/html` attachment, which a terminal reporter lists as one entry (its
 * name naming the messages, then its path) however many messages there are,
 * and the HTML report opens in a tab. Each message is there with its sender,
 * recipients, subject and date, the email itself in a sandboxed frame, its
 * text and its headers; its files (`.html`, `.txt`, `.headers.json`, `.eml`)
 * are attachments of their own beside it.
 */
export class MessageIndex {
  readonly #entries: Array<{ label: string; message: ReportableMessage; kind: MessageKind }> = [];

  /** Adds a message under its attachment label. */
  add(label: string, message: ReportableMessage, kind: MessageKind): void {
    this.#entries.push({ label, message, kind });
  }

  /** How many messages were added. */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * The attachment's name: how many messages of which kind, and their labels,
   * on one line of at most {@link INDEX_NAME_MAX} characters.
   */
  name(): string {
    const kinds = new Set(this.#entries.map(({ kind }) => kind));
    const count = this.#entries.length;
    const noun = kinds.size > 1 ? (count === 1 ? 'message' : 'messages') : kinds.has('SMS') ? 'SMS' : count === 1 ? 'email' : 'emails';
    const name = `inboxkit: ${count} ${noun} — ${this.#entries.map(({ label }) => label).join(' · ')}`;
    return name.length > INDEX_NAME_MAX ? `${name.slice(0, INDEX_NAME_MAX - 1)}…` : name;
  }

  /** The page itself: self-contained, loading nothing (see {@link renderEmailDocument}). */
  render(title: string): string {
    const toc = this.#entries.map(({ label }, i) => `<li><a href="#m${i + 1}">${escapeHtml(label)}</a></li>`).join('');
    const sections = this.#entries.map(({ label, message }, i) => renderIndexEntry(i + 1, label, message)).join('\n');
    return [
      '<!doctype html>',
      '<html><head><meta charset="utf-8">',
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:">`,
      `<title>${escapeHtml(this.name())}</title>`,
      `<style>${INDEX_STYLE}</style></head><body>`,
      `<h1>${escapeHtml(this.name().replace(/ — .*$/s, ''))} of “${escapeHtml(title)}”</h1>`,
      `<ol class="toc">${toc}</ol>`,
      sections,
      '</body></html>',
    ].join('\n');
  }

  /**
   * Attaches the page; nothing when no message was added. Under a failure it
   * is written into the test's output folder and attached by path, so that a
   * terminal reporter shows one path (a `text/html` body would be printed);
   * a passing test, which no terminal reporter details, gets it as a body and
   * leaves no file behind.
   */
  async attachTo(testInfo: TestInfo, failed: boolean): Promise<void> {
    if (this.#entries.length === 0) return;
    const page = this.render(testInfo.titlePath.slice(1).join(' › '));
    if (!failed) {
      await testInfo.attach(this.name(), { body: page, contentType: 'text/html' });
      return;
    }
    const file = testInfo.outputPath('inboxkit-messages.html');
    await writeFile(file, page);
    await testInfo.attach(this.name(), { path: file, contentType: 'text/html' });
  }
}

const INDEX_STYLE = [
  'body{font:14px/1.45 system-ui,sans-serif;margin:16px 24px;color:#1f2328}',
  'h1{font-size:18px}h2{font-size:16px;margin:28px 0 6px;padding-top:12px;border-top:1px solid #d0d7de}',
  'table.meta th{text-align:left;padding:2px 12px 2px 0;color:#57606a;font-weight:500;vertical-align:top}',
  'iframe{display:block;width:100%;max-width:900px;height:520px;border:1px solid #d0d7de;border-radius:6px;resize:vertical;overflow:auto;background:#fff}',
  'pre{white-space:pre-wrap;font:13px/1.4 ui-monospace,monospace;background:#f6f8fa;padding:8px;border-radius:6px}',
  'details{margin:8px 0}summary{cursor:pointer;color:#0969da}',
  'table.headers td{font:12px ui-monospace,monospace;padding:1px 8px 1px 0;vertical-align:top;word-break:break-all}',
].join('');

/** One message of the index: its header block, the email itself in a sandboxed frame, its text and its headers. */
function renderIndexEntry(n: number, label: string, message: ReportableMessage): string {
  const meta = headerRows(message).map(([name, value]) => `<tr><th>${name}</th><td>${escapeHtml(value)}</td></tr>`).join('');
  const headers = Object.entries(message.headers)
    .map(([name, value]) => `<tr><td>${escapeHtml(name)}</td><td>${escapeHtml(value)}</td></tr>`)
    .join('');
  const text = message.text === null || message.text === undefined ? '' : `<details open><summary>Text</summary><pre>${escapeHtml(readerText(message.text))}</pre></details>`;
  return [
    `<section id="m${n}"><h2>${escapeHtml(label)}</h2>`,
    `<table class="meta">${meta}</table>`,
    // No script runs in it and it loads nothing: sandboxed, under the email document's own policy.
    `<iframe sandbox title="${escapeHtml(label)}" srcdoc="${escapeHtml(renderEmailDocument(message, { header: false }))}"></iframe>`,
    text,
    `<details><summary>Headers</summary><table class="headers">${headers}</table></details>`,
    '</section>',
  ].join('\n');
}
