import type { NewMessage, ParsedMessage } from '../storage/contract/types.ts';
import { parseMessage, type ParseOptions } from './parse.ts';
import { sanitizeHtml } from './sanitize.ts';
import { INLINE_IMAGE_TYPE } from './url-policy.ts';

/** Options of {@link prepareMessage}: those of the parse. */
export type PrepareOptions = ParseOptions;

/** A message ready to store: everything a reader will be sent is computed. */
export interface PreparedMessage {
  /**
   * The message as the store keeps it: addresses, subject, headers, text
   * (derived from the HTML when the mail had none), raw HTML, attachments and
   * the sanitized HTML.
   */
  message: NewMessage;
  /**
   * The sanitized HTML body (the same as `message.sanitizedHtml`), its `cid:`
   * images turned into `data:` URLs of the message's inline raster parts (so
   * that an offline page shows them), or `null` when the message has no HTML
   * body or its sanitizing is left to its readers ({@link readerHtml}).
   */
  sanitizedHtml: string | null;
  /** Set when the MIME parser failed or timed out and the fallback reading was used. */
  fallbackReason: string | null;
}

/**
 * The `data:` URL of each inline raster image part the HTML refers to, by
 * Content-ID.
 */
export function inlineImageUrls(message: Pick<ParsedMessage, 'rawHtml' | 'attachments'>): Map<string, string> {
  const urls = new Map<string, string>();
  if (message.rawHtml === null) return urls;
  for (const attachment of message.attachments) {
    if (attachment.contentId === null || !INLINE_IMAGE_TYPE.test(attachment.contentType)) continue;
    if (!message.rawHtml.includes(attachment.contentId)) continue;
    const content = attachment.content;
    urls.set(attachment.contentId, `data:${attachment.contentType};base64,${Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64')}`);
  }
  return urls;
}

/**
 * HTML bodies of at most this many characters that refer to no inline image
 * of the message are sanitized when read ({@link readerHtml}), not at intake:
 * most mail of a test run is never read (a flood, a load test, the mail of a
 * test that passed without looking), and sanitizing is about a quarter of the
 * CPU time intake spends on a 10 KB email. A read stores nothing (no request
 * writes); a node keeps what it sanitized for the next reads
 * ({@link createHtmlReader}). Up to this size the reader's sanitizing is as short as
 * intake's is for a small message (which runs on the event loop too); larger
 * bodies, and those whose `cid:` images are resolved from the message's
 * parts, are sanitized at intake, in the mail pool's worker when the message
 * is large.
 */
export const DEFERRED_HTML_MAX_CHARS = 65_536;

/** Whether a parsed message's HTML is left to its readers (see {@link DEFERRED_HTML_MAX_CHARS}). */
function deferred(message: Pick<ParsedMessage, 'rawHtml' | 'attachments'>): boolean {
  return message.rawHtml !== null && message.rawHtml.length <= DEFERRED_HTML_MAX_CHARS && inlineImageUrls(message).size === 0;
}

/**
 * The sanitized HTML of a stored message, as every reader is sent it: the
 * HTML sanitized at intake, or, for a body left to its readers (see
 * {@link DEFERRED_HTML_MAX_CHARS}), sanitized now, exactly as intake would
 * have (it refers to no inline image of the message). `null` without HTML.
 * Never sanitizes a body larger than {@link DEFERRED_HTML_MAX_CHARS} here: no
 * read holds the event loop longer than a small message's intake does.
 */
export function readerHtml(record: { rawHtml: string | null; sanitizedHtml: string | null }): string | null {
  if (record.sanitizedHtml !== null || record.rawHtml === null || record.rawHtml.length > DEFERRED_HTML_MAX_CHARS) return record.sanitizedHtml;
  return sanitizeMessageHtml({ rawHtml: record.rawHtml, attachments: [] });
}

/** What every reader of a node is sent as a message's HTML (see {@link createHtmlReader}). */
export type HtmlReader = (record: { id: string; rawHtml: string | null; sanitizedHtml: string | null }) => string | null;

/** Bounds of {@link createHtmlReader}'s cache. */
export interface HtmlReaderOptions {
  /**
   * Most characters of sanitized HTML kept, all messages together.
   * @defaultValue 4_194_304 (4 Mi characters: a hundred-odd 30 KB emails)
   */
  maxChars?: number;
}

/**
 * The {@link readerHtml} of one node, with the HTML it sanitized kept for the
 * next reads (the newest first, up to `maxChars` in all): a message read again
 * and again (a viewer, a test's retries, a caller in a loop) is sanitized once
 * while it stays among the recent ones, so reads cannot multiply the work that
 * leaving it to them saved. Reads still store nothing; the cache is the node's
 * memory, made with its context and gone with it.
 */
export function createHtmlReader(options: HtmlReaderOptions = {}): HtmlReader {
  const maxChars = options.maxChars ?? 4 * 1024 * 1024;
  const kept = new Map<string, string>();
  let chars = 0;
  return (record) => {
    if (record.sanitizedHtml !== null || record.rawHtml === null) return record.sanitizedHtml;
    const known = kept.get(record.id);
    if (known !== undefined) {
      // The most recently read last: the first to go is the one read longest ago.
      kept.delete(record.id);
      kept.set(record.id, known);
      return known;
    }
    const html = readerHtml(record);
    if (html === null || html.length > maxChars) return html;
    kept.set(record.id, html);
    chars += html.length;
    for (const [id, old] of kept) {
      if (chars <= maxChars) break;
      kept.delete(id);
      chars -= old.length;
    }
    return html;
  };
}

/**
 * Parses a raw RFC 5322 message and sanitizes its HTML body (unless that is
 * left to its readers, see {@link DEFERRED_HTML_MAX_CHARS}): all the work
 * a message needs before it is stored, done once. Pure (no I/O, no shared
 * state), so that it can run at intake, in any thread.
 *
 * Never rejects for a bad message: see {@link parseMessage} for the fallback
 * reading.
 *
 * @example
 * ```ts
 * const { message, sanitizedHtml } = await prepareMessage(raw, { envelopeFrom: 'app@example.com' });
 * ```
 */
export async function prepareMessage(raw: Uint8Array, options: PrepareOptions): Promise<PreparedMessage> {
  const { message: parsed, fallbackReason } = await parseMessage(raw, options);
  const sanitizedHtml = deferred(parsed) ? null : sanitizeMessageHtml(parsed);
  return { message: { ...parsed, sanitizedHtml }, sanitizedHtml, fallbackReason };
}

/**
 * The sanitized HTML of a parsed message, `cid:` images resolved from its own
 * parts; `null` without HTML.
 *
 * Each Content-ID becomes its `data:` URL once (computed once, whatever the
 * number of references), and the `data:` URLs written into the HTML together
 * stay within the size of the message's raw source: an image the sender
 * referenced a thousand times is not copied a thousand times. The source holds
 * each image once, so every image can be shown at least once; a reference past
 * the bound is left unresolved (removed, as for an unknown Content-ID), and the
 * image stays downloadable as an attachment.
 */
export function sanitizeMessageHtml(message: Pick<ParsedMessage, 'rawHtml' | 'attachments'> & { raw?: Uint8Array }): string | null {
  if (message.rawHtml === null) return null;
  const urls = inlineImageUrls(message);
  let budget = message.raw?.byteLength ?? message.rawHtml.length + message.attachments.reduce((sum, a) => sum + a.content.byteLength * 2, 0);
  return sanitizeHtml(message.rawHtml, {
    resolveCid: (cid) => {
      const url = urls.get(cid);
      if (url === undefined || url.length > budget) return null;
      budget -= url.length;
      return url;
    },
  });
}
