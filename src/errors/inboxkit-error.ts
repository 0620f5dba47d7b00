/**
 * The root of inboxkit's error tree, in a folder of its own so that the client
 * and the extraction layer can both derive from it without importing each
 * other. It imports nothing.
 *
 * @packageDocumentation
 */

/**
 * The root of every error the inboxkit client throws.
 *
 * @example
 * ```ts
 * try { await client.inboxes.get(id); }
 * catch (err) { if (err instanceof InboxkitError) console.error(err.message); }
 * ```
 */
export class InboxkitError extends Error {
  override name: string = 'InboxkitError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
