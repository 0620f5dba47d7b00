/**
 * What the server does with a received message before it is stored and read:
 * parse the MIME, derive the text, sanitize the HTML with its `cid:` images
 * resolved ({@link prepareMessage}, or {@link createMailPool} to move large
 * messages off the event loop). Presenting stored records as the API sends them is
 * the HTTP layer's job (src/server/http/present.ts).
 *
 * @packageDocumentation
 */
export { prepareMessage, sanitizeMessageHtml, inlineImageUrls } from './prepare.ts';
export type { PrepareOptions, PreparedMessage } from './prepare.ts';
export { createMailPool } from './pool.ts';
export type { MailPool, MailPoolOptions } from './pool.ts';
export { parseMessage, fallbackParse } from './parse.ts';
export type { ParseOptions, ParseResult } from './parse.ts';
export { sanitizeHtml, createSanitizer } from './sanitize.ts';
export type { Sanitizer, SanitizeOptions } from './sanitize.ts';
