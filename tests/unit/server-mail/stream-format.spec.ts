import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { formatEvent } from '../../../src/server/http/sse.ts';
import { parseLastEventId } from '../../../src/server/routes/stream.handlers.ts';

test('an event is event, id and one data line, ended by a blank line', () => {
  expect(formatEvent('message', { a: 1 }, 7)).toBe('event: message\nid: 7\ndata: {"a":1}\n\n');
  expect(formatEvent('ready', { lastSeq: 0 })).toBe('event: ready\ndata: {"lastSeq":0}\n\n');
});

test('whatever a string holds, the data stays one line', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (subject) => {
      const text = formatEvent('message', { subject }, 1);
      expect(text.split('\n').filter((l) => l.startsWith('data: '))).toHaveLength(1);
      expect(text.slice(0, -2)).not.toMatch(/\r|\n\n/);
    }),
  );
});

test('Last-Event-ID is a non-negative integer in decimal digits, as the document\'s pattern says; empty means none; anything else is refused', () => {
  expect(parseLastEventId(undefined)).toBeNull();
  expect(parseLastEventId('')).toBeNull();
  expect(parseLastEventId('12')).toBe(12);
  expect(parseLastEventId('0')).toBe(0);
  // HTTP strips the spaces around a header value; a query value with spaces is not digits.
  for (const bad of ['-1', '1.5', 'abc', '1e3', '+5', ' 12 ', '9999999999999999']) {
    expect(() => parseLastEventId(bad), bad).toThrow(/Last-Event-ID/);
  }
});
