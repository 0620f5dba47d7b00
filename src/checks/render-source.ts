/**
 * Preparing an email's HTML for a deterministic render: what would run or
 * navigate is removed, remote images are kept, blocked or replaced by
 * placeholders of their declared size, and the parts that change with every
 * send (the one-time code, tokens in visible URLs, dates) are wrapped in
 * `<span data-inboxkit-dynamic>` with a fixed text, so that they can be masked
 * and the layout does not move with their digits or a date's day and month names.
 *
 * @packageDocumentation
 */
import * as cheerio from 'cheerio';
import { InboxkitError } from '../errors/inboxkit-error.ts';
import { isRawUnsupported } from './original.ts';
import type { OriginalAttachment, ParsedOriginal } from './original.ts';

/** A part of the email that changes with every send, masked in snapshots. */
export interface DynamicPart {
  /** `code` (the one-time code), `token` (a URL with a token in the visible text) or `date` (a date or time). */
  kind: 'code' | 'token' | 'date';
  /** The text as it appears in the email. */
  text: string;
}

/** How remote images are rendered. */
export type ImageMode = 'blocked' | 'placeholder' | 'loaded';

/** Options of {@link prepareRenderHtml}. */
export interface PrepareRenderOptions {
  /** How remote (http, https, protocol-relative) images are shown. */
  images: ImageMode;
  /** One-time codes (as they appear) to mark; found by the caller through the extraction. */
  codes: readonly string[];
  /** Whether to mark dynamic parts at all. */
  maskDynamic: boolean;
}

/** What {@link prepareRenderHtml} returns. */
export interface PreparedRender {
  /** A whole document. */
  html: string;
  /** The dynamic parts marked, in document order, without repeats. */
  dynamic: DynamicPart[];
}

const MONTHS = '(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?';
const DAYS = '(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\\.?,?\\s+)?';
const TIME = '(?:,?\\s*(?:at\\s+)?\\d{1,2}:\\d{2}(?::\\d{2})?(?:\\s?[AaPp]\\.?[Mm]\\.?)?(?:\\s?(?:UTC|GMT|[A-Z]{3,4}|[+-]\\d{2}:?\\d{2}))?)?';
/** Dates and times as apps stamp them: ISO 8601, `25 Nov 2026`, `November 25, 2026`, `11/25/2026`, `19:17 UTC`. */
const DATE_PATTERNS = [
  `\\b\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|\\s?UTC|[+-]\\d{2}:?\\d{2})?)?\\b`,
  `\\b${DAYS}\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTHS}\\s+\\d{4}${TIME}`,
  `\\b${DAYS}${MONTHS}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}${TIME}`,
  `(?<![\\d.])\\d{1,2}[/.]\\d{1,2}[/.](?:\\d{4}|\\d{2})(?![\\d.])${TIME}`,
  `\\b\\d{1,2}:\\d{2}(?::\\d{2})?(?:\\s?[AaPp]\\.?[Mm]\\.?)?\\s?(?:UTC|GMT)\\b`,
];
/** A URL in visible text whose path or query holds a token: 16+ letters and digits mixed, or a parameter named like one. */
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+/gi;
const TOKEN_SEGMENT = /(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{16,}|[?&](?:token|code|key|sig|signature|otp|auth)=[^&#\s]{6,}/i;

/** A placeholder that keeps a remote image's declared size (a light grey box). */
function placeholderSrc(width: string | undefined, height: string | undefined): string {
  const w = /^\d+$/.test(width ?? '') ? width : '1';
  const h = /^\d+$/.test(height ?? '') ? height : '1';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#d9d9d9"/></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

function isRemote(url: string): boolean {
  return /^(https?:)?\/\//i.test(url.trim());
}

/** Removes what would run code or navigate while the email is rendered. */
function neutralize($: cheerio.CheerioAPI): void {
  $('script, iframe, frame, frameset, object, embed, base, meta[http-equiv], noscript').remove();
  $('*').each((_, el) => {
    if (el.type !== 'tag') return;
    for (const name of Object.keys(el.attribs)) {
      const value = el.attribs[name] ?? '';
      if (/^on/i.test(name) || /^\s*(javascript|vbscript):/i.test(value)) $(el).removeAttr(name);
    }
  });
  $('a[target], area[target], form[target]').removeAttr('target');
}

function handleImages($: cheerio.CheerioAPI, images: ImageMode): void {
  if (images !== 'placeholder') return;
  $('img').each((_, el) => {
    const img = $(el);
    if (!isRemote(img.attr('src') ?? '')) return;
    img.attr('src', placeholderSrc(img.attr('width'), img.attr('height')));
    img.removeAttr('srcset');
  });
  $('picture source').remove();
}

/** The dynamic parts of one text, as [start, end, kind] ranges, earliest first and without overlaps. */
function rangesOf(text: string, codes: readonly string[]): Array<[number, number, DynamicPart['kind']]> {
  const found: Array<[number, number, DynamicPart['kind']]> = [];
  for (const match of text.matchAll(URL_PATTERN)) {
    if (TOKEN_SEGMENT.test(match[0])) found.push([match.index, match.index + match[0].length, 'token']);
  }
  for (const source of DATE_PATTERNS) {
    for (const match of text.matchAll(new RegExp(source, 'g'))) found.push([match.index, match.index + match[0].trimEnd().length, 'date']);
  }
  for (const code of codes) {
    if (code === '') continue;
    for (let at = text.indexOf(code); at !== -1; at = text.indexOf(code, at + code.length)) found.push([at, at + code.length, 'code']);
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: typeof found = [];
  for (const range of found) if (out.length === 0 || range[0] >= (out.at(-1) as (typeof found)[number])[1]) out.push(range);
  return out;
}

/** Same length, no information: every letter and digit becomes `0`, so a new code does not move the layout. */
function neutralText(text: string): string {
  return text.replace(/[\p{L}\p{N}]/gu, '0');
}

/**
 * The placeholder of one dynamic part, the same whatever the send. A token
 * URL's query and fragment change length from send to send (random ids,
 * percent-encoded `+` and `/`), so they become a run of fixed length. A date
 * changes length with its day and month names and numbers (`Wednesday, 25`
 * against `Thursday, 3`), so each run of letters or digits in it becomes `00`
 * and only its punctuation and spaces stay: the layout after either does not
 * move, and the masked box keeps its size from day to day.
 */
function placeholderOf(kind: DynamicPart['kind'], value: string): string {
  if (kind === 'date') return value.replace(/[\p{L}\p{N}]+/gu, '00');
  const cut = kind === 'token' ? value.search(/[?#]/) : -1;
  return cut < 0 ? neutralText(value) : `${neutralText(value.slice(0, cut))}?${'0'.repeat(48)}`;
}

function markDynamic($: cheerio.CheerioAPI, codes: readonly string[]): DynamicPart[] {
  const parts = new Map<string, DynamicPart>();
  const skipped = new Set(['style', 'script', 'title', 'textarea']);
  const texts = $.root()
    .find('*')
    .contents()
    .filter((_, node) => node.type === 'text' && !(node.parent !== null && 'name' in node.parent && skipped.has(node.parent.name)));
  texts.each((_, node) => {
    const text = (node as unknown as { data: string }).data;
    const ranges = rangesOf(text, codes);
    if (ranges.length === 0) return;
    let html = '';
    let at = 0;
    for (const [start, end, kind] of ranges) {
      const value = text.slice(start, end);
      parts.set(`${kind}\u0000${value}`, { kind, text: value });
      html += escapeText(text.slice(at, start)) + `<span data-inboxkit-dynamic="${kind}">${escapeText(placeholderOf(kind, value))}</span>`;
      at = end;
    }
    html += escapeText(text.slice(at));
    $(node).replaceWith(html);
  });
  return [...parts.values()];
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Prepares an email's HTML (whole document or fragment) for a deterministic
 * render; see the module's description.
 *
 * @throws InboxkitError when `images` is not one of `blocked`, `placeholder`, `loaded`.
 */
export function prepareRenderHtml(html: string, options: PrepareRenderOptions): PreparedRender {
  if (!['blocked', 'placeholder', 'loaded'].includes(options.images)) {
    throw new InboxkitError(`render: images must be 'blocked', 'placeholder' or 'loaded', got ${JSON.stringify(options.images)}.`);
  }
  const $ = cheerio.load(html);
  neutralize($);
  handleImages($, options.images);
  const dynamic = options.maskDynamic ? markDynamic($, options.codes) : [];
  if ($('head meta[charset]').length === 0) $('head').prepend('<meta charset="utf-8">');
  return { html: $.html(), dynamic };
}

/** Largest inline (`cid:`) image turned into a `data:` URL; a bigger one is left unresolved (blank). */
const MAX_INLINE_IMAGE_BYTES = 2 * 1024 * 1024;
/** Most bytes of inline images one render resolves in all; the rest are left unresolved. */
const MAX_INLINE_TOTAL_BYTES = 8 * 1024 * 1024;

/** `cid:` references of the original HTML, resolved to `data:` URLs of the message's own inline parts, so the render needs no network. */
function inlineCidImages(html: string, attachments: readonly OriginalAttachment[]): string {
  const byId = new Map<string, string>();
  let total = 0;
  for (const a of attachments) {
    const id = a.contentId?.replace(/^<|>$/g, '');
    if (!id || !/^image\//i.test(a.mimeType)) continue;
    const bytes = typeof a.content === 'string' ? Buffer.from(a.content) : Buffer.from(a.content instanceof Uint8Array ? a.content : new Uint8Array(a.content));
    if (bytes.length > MAX_INLINE_IMAGE_BYTES || total + bytes.length > MAX_INLINE_TOTAL_BYTES) continue;
    total += bytes.length;
    byId.set(id.toLowerCase(), `data:${a.mimeType};base64,${bytes.toString('base64')}`);
  }
  if (byId.size === 0) return html;
  return html.replace(/(["'(])cid:([^"')\s]+)/gi, (whole, quote: string, id: string) => {
    const url = byId.get(decodeURIComponent(id).toLowerCase());
    return url ? `${quote}${url}` : whole;
  });
}

/** What {@link renderSource} needs of a message. */
export interface RenderSource<O = unknown> {
  /** The sanitized HTML, used when the raw source cannot be read. */
  html: string | null;
  /** The text body, rendered when there is no HTML. */
  text: string | null;
  /** The message's original parts, read and parsed once (`message.original()`). */
  original(options?: O): Promise<ParsedOriginal>;
}

/**
 * The HTML to render for a message: its original HTML part (read from the raw
 * source, as the compatibility check reads it, so that a client profile sees
 * what the client would get), the sanitized HTML when the server serves no raw
 * source, or the text body in a `<pre>`.
 *
 * @throws InboxkitError when the message has neither HTML nor text (an empty message).
 */
export async function renderSource<O>(message: RenderSource<O>, options?: O): Promise<{ html: string; source: 'original' | 'sanitized' | 'text' }> {
  let original: string | null = null;
  try {
    const parsed = await message.original(options);
    original = parsed.html === null ? null : inlineCidImages(parsed.html, parsed.attachments);
  } catch (error) {
    if (!isRawUnsupported(error)) throw error;
  }
  if (original !== null && original.trim() !== '') return { html: original, source: 'original' };
  if (message.html !== null && message.html.trim() !== '') return { html: message.html, source: 'sanitized' };
  if (message.text !== null && message.text.trim() !== '') {
    return { html: `<!doctype html><html><body><pre style="white-space:pre-wrap;font:14px/1.4 monospace;margin:16px">${escapeText(message.text)}</pre></body></html>`, source: 'text' };
  }
  throw new InboxkitError('render: the message is empty (no HTML and no text body), so there is nothing to render; check what the app sent.');
}
