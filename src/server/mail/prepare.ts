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
   * that an offline page shows them), or `null` when the message has no HTML body.
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
 * Parses a raw RFC 5322 message and sanitizes its HTML body: all the work a
 * message needs before it is stored, done once. Pure (no I/O, no shared
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
  const sanitizedHtml = sanitizeMessageHtml(parsed);
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
