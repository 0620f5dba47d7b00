/**
 * {@link MessageOriginal}: a message's raw source and its parsed parts
 * (`postal-mime`), each made on first use and then shared by every analysis
 * of that message — content rules, sender authentication, compatibility,
 * renders, accessibility audits, the report's `.eml` — so that a message's raw
 * source is fetched once and parsed once however many checks read it.
 *
 * @packageDocumentation
 */
import { InboxkitError } from '../errors/inboxkit-error.ts';
import type { ContentSource } from './content-checks.ts';

/** One attachment of the original, as `postal-mime` reads it. */
export interface OriginalAttachment {
  filename: string | null;
  mimeType: string;
  contentId?: string;
  content: ArrayBuffer | Uint8Array | string;
}

/** The parts of the original that the analyses read. */
export interface ParsedOriginal {
  /** Every header as sent, names lower-cased, in order. */
  headers: Array<{ key: string; value: string }>;
  /** The original HTML part (not sanitized), or `null`. */
  html: string | null;
  /** The text part, or `null`. */
  text: string | null;
  /** The attachments, inline images included. */
  attachments: OriginalAttachment[];
}

/**
 * Whether an error of the raw-source fetch means the server has no raw
 * sources at all (a hosted service without the extension: 404 or 405), the
 * one failure after which the analyses fall back to the sanitized HTML.
 */
export function isRawUnsupported(error: unknown): boolean {
  return error instanceof InboxkitError && 'status' in error && ((error as { status: unknown }).status === 404 || (error as { status: unknown }).status === 405);
}

/**
 * A message's original, fetched and parsed at most once. The first caller's
 * request options apply to the one fetch; a failed fetch is not kept (the
 * next caller tries again), except that a server without raw sources is
 * remembered as such.
 *
 * @typeParam O - the request options of the fetch.
 */
export class MessageOriginal<O = unknown> {
  readonly #fetch: (options?: O) => PromiseLike<Uint8Array>;
  #raw: Promise<Uint8Array> | undefined;
  #parsed: Promise<ParsedOriginal> | undefined;

  /** @param fetch - reads the raw source once (`GET /messages/{id}/raw`). */
  constructor(fetch: (options?: O) => PromiseLike<Uint8Array>) {
    this.#fetch = fetch;
  }

  /** The raw source's bytes (the same bytes for every caller: do not change them). */
  raw(options?: O): Promise<Uint8Array> {
    if (this.#raw === undefined) {
      const pending = Promise.resolve(this.#fetch(options));
      this.#raw = pending;
      pending.catch((error: unknown) => {
        if (!isRawUnsupported(error) && this.#raw === pending) this.#raw = undefined;
      });
    }
    return this.#raw;
  }

  /** The headers, original HTML, text and attachments, parsed once from {@link raw}. */
  parsed(options?: O): Promise<ParsedOriginal> {
    if (this.#parsed === undefined) {
      const pending = this.raw(options).then(parseOriginal);
      this.#parsed = pending;
      pending.catch(() => {
        if (this.#parsed === pending) this.#parsed = undefined;
      });
    }
    return this.#parsed;
  }

  /** What the content rules read: every header as sent, the original HTML part and the text part. */
  async contentSource(options?: O): Promise<ContentSource> {
    return contentPartsOf(await this.parsed(options));
  }
}

/** Parses a raw source with `postal-mime` (loaded on first use). */
export async function parseOriginal(raw: Uint8Array | string): Promise<ParsedOriginal> {
  const { default: PostalMime } = await import('postal-mime');
  const parsed = await PostalMime.parse(raw);
  return {
    headers: parsed.headers.map((h) => ({ key: h.key.toLowerCase(), value: h.value })),
    html: parsed.html ?? null,
    text: parsed.text ?? null,
    attachments: parsed.attachments.map((a) => ({ filename: a.filename, mimeType: a.mimeType, ...(a.contentId ? { contentId: a.contentId } : {}), content: a.content })),
  };
}

/** What the content rules read of the parsed original. */
export function contentPartsOf(parsed: ParsedOriginal): ContentSource {
  return { headers: parsed.headers, html: parsed.html, text: parsed.text };
}

/**
 * The original HTML part of a message, or `undefined` when its server serves
 * no raw sources (the caller then falls back to the sanitized HTML); any other
 * failure is thrown.
 */
export async function originalHtml<O>(message: { original(options?: O): Promise<ParsedOriginal> }, options?: O): Promise<string | null | undefined> {
  try {
    return (await message.original(options)).html;
  } catch (error) {
    if (isRawUnsupported(error)) return undefined;
    throw error;
  }
}

/** What the content rules read of a message that has only a way to read its raw source. */
export async function contentSourceOf(message: { raw(): PromiseLike<Uint8Array> }): Promise<ContentSource> {
  return new MessageOriginal(() => message.raw()).contentSource();
}
