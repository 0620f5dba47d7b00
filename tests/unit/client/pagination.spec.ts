import { test, expect } from '@playwright/test';
import { PagePromise } from '../../../src/client/core/pagination.ts';
import type { PageFetcher } from '../../../src/client/core/pagination.ts';
import { normaliseCursor, readPage } from '../../../src/client/internal/calls.ts';
import type { ResponseInfo } from '../../../src/client/core/types.ts';

const info: ResponseInfo = { status: 200, headers: {}, rateLimit: { limit: 10, remaining: 9, reset: 60 }, requestId: null, retries: 0 };

/** A list of `n` numbers served `size` at a time, with the cursors asked for recorded. */
function numbers(n: number, size: number): { fetch: PageFetcher<number>; asked: Array<string | undefined> } {
  const all = Array.from({ length: n }, (_, i) => i + 1);
  const asked: Array<string | undefined> = [];
  const fetch: PageFetcher<number> = async (cursor) => {
    asked.push(cursor);
    const start = cursor === undefined ? 0 : Number(cursor.slice(2));
    const items = all.slice(start, start + size);
    const next = start + size < n ? `c:${start + size}` : null;
    return { items, nextCursor: next, response: info };
  };
  return { fetch, asked };
}

test('awaiting a list gives its first page only', async () => {
  const { fetch, asked } = numbers(25, 10);
  const page = await new PagePromise(fetch);
  expect(page.items).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(page.nextCursor).toBe('c:10');
  expect(page.hasNextPage()).toBe(true);
  expect(page.rateLimit.remaining).toBe(9);
  expect(asked).toEqual([undefined]);
});

test('iterating a list walks every page once, following each next cursor', async () => {
  const { fetch, asked } = numbers(25, 10);
  const seen: number[] = [];
  for await (const n of new PagePromise(fetch)) seen.push(n);
  expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  expect(asked).toEqual([undefined, 'c:10', 'c:20']);
});

test('a list can start at a cursor and be walked page by page', async () => {
  const { fetch } = numbers(25, 10);
  const pages = [];
  for await (const page of new PagePromise(fetch, 'c:10').pages()) pages.push(page.items.length);
  expect(pages).toEqual([10, 5]);
  const last = await new PagePromise(fetch, 'c:20');
  expect(last.hasNextPage()).toBe(false);
  expect(await last.nextPage()).toBeNull();
});

test('breaking out of an iteration fetches no further page', async () => {
  const { fetch, asked } = numbers(100, 10);
  for await (const n of new PagePromise(fetch)) if (n === 3) break;
  expect(asked).toEqual([undefined]);
});

test('an empty list iterates to nothing', async () => {
  const { fetch } = numbers(0, 10);
  expect(await new PagePromise(fetch).all()).toEqual([]);
});

test('the next cursor is read inside data or next to it', () => {
  expect(readPage({ data: { items: [1], nextCursor: 'a' } })).toEqual({ items: [1], nextCursor: 'a' });
  expect(readPage({ data: [1, 2], nextCursor: 'b' })).toEqual({ items: [1, 2], nextCursor: 'b' });
  expect(readPage({ data: { items: [1] }, nextCursor: 'c' })).toEqual({ items: [1], nextCursor: 'c' });
  expect(readPage({ data: [1], meta: { nextCursor: 'd' } })).toEqual({ items: [1], nextCursor: 'd' });
  expect(readPage({ data: { items: [] } })).toEqual({ items: [], nextCursor: undefined });
  expect(readPage({ data: { things: [] } })).toBeNull();
  expect(readPage({ data: 'nope' })).toBeNull();
});

test('a missing, null or empty next cursor ends the list; a number is taken as text; anything else is refused', () => {
  expect(normaliseCursor(undefined)).toBeNull();
  expect(normaliseCursor(null)).toBeNull();
  expect(normaliseCursor('')).toBeNull();
  expect(normaliseCursor('abc')).toBe('abc');
  expect(normaliseCursor(40)).toBe('40');
  expect(normaliseCursor({ next: 1 })).toBeUndefined();
});
