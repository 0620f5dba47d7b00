/**
 * Opaque list cursors. A cursor is a keyset position (an integer that only
 * grows as items are added), so it stays valid while items arrive and are deleted.
 *
 * @packageDocumentation
 */

/** The cursor kind of inbox lists (`GET /inboxes`). */
export const INBOX_CURSOR = 'i';
/** The cursor kind of message lists (`GET /inboxes/{id}/messages`). */
export const MESSAGE_CURSOR = 'm';

/** A cursor that was not issued by this server, or for another list. */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
}

/** Encodes a keyset position of a list (`kind` keeps cursors of different lists apart). */
export function encodeCursor(kind: string, position: number): string {
  return Buffer.from(`${kind}:${position}`, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor of a list of `kind`.
 *
 * @throws InvalidCursorError when the cursor is malformed or belongs to another list.
 */
export function decodeCursor(kind: string, cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^([a-z]+):(\d{1,16})$/.exec(text);
  if (!match || match[1] !== kind || !Number.isSafeInteger(Number(match[2]))) {
    throw new InvalidCursorError('cursor: not a cursor of this list; pass the nextCursor of a previous page, or omit it for the first page.');
  }
  return Number(match[2]);
}
