/**
 * The parts of a received message the content rules read, from its raw source
 * (`postal-mime`): every header as sent, the original HTML part and the text part.
 *
 * @packageDocumentation
 */
import type { ContentSource } from '../../extract/index.ts';
import type { RequestOptions } from '../core/types.ts';

/** What content checks need of a message. */
export interface ContentCheckable {
  /** The raw source. */
  raw(options?: RequestOptions): Promise<Uint8Array>;
}

/** Reads a message's headers and original parts from its raw source with `postal-mime`. */
export async function contentSourceOf(message: ContentCheckable, options?: RequestOptions): Promise<ContentSource> {
  const { default: PostalMime } = await import('postal-mime');
  const parsed = await PostalMime.parse(await message.raw(options));
  return { headers: parsed.headers.map((h) => ({ key: h.key.toLowerCase(), value: h.value })), html: parsed.html ?? null, text: parsed.text ?? null };
}
