import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { InvalidCursorError, decodeCursor, encodeCursor } from '../../../src/server/storage/contract/cursor.ts';

test('a cursor decodes to the position it was made from', () => {
  fc.assert(
    fc.property(fc.constantFrom('i', 'm'), fc.nat({ max: Number.MAX_SAFE_INTEGER }), (kind, position) => {
      expect(decodeCursor(kind, encodeCursor(kind, position))).toBe(position);
    }),
  );
});

test('a cursor is opaque: it reads as neither a number nor the position', () => {
  const cursor = encodeCursor('m', 42);
  expect(cursor).not.toContain('42');
  expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
});

test('a cursor of the inbox list is refused by the message list', () => {
  expect(() => decodeCursor('m', encodeCursor('i', 7))).toThrow(InvalidCursorError);
});

test('arbitrary strings are refused as cursors with a message naming the cursor', () => {
  fc.assert(
    fc.property(fc.string(), (s) => {
      let decoded: number;
      try {
        decoded = decodeCursor('m', s);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidCursorError);
        expect((error as Error).message).toMatch(/^cursor: /);
        return;
      }
      // Only strings that are themselves valid encodings may decode.
      expect(encodeCursor('m', decoded)).toBe(s);
    }),
  );
});
