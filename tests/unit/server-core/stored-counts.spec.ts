/**
 * The gauges of what the store holds read it at a bounded cost: at most once
 * per interval however often they are scraped, never waiting long on a slow
 * store, and keeping the last counts through a failed read.
 */
import { test, expect } from '@playwright/test';
import { cachedStoredCounts } from '../../../src/server/stored-counts.ts';
import type { StoredCounts } from '../../../src/server/storage/contract/types.ts';

const counts = (inboxes: number): StoredCounts => ({ inboxes, phones: 1, messages: 10 * inboxes });

test('the store is read once per interval, however many scrapes come meanwhile, and again once the interval is over', async () => {
  let now = 0;
  let reads = 0;
  const read = cachedStoredCounts(async () => counts(++reads), { maxAgeMs: 30_000, now: () => now });
  expect(await Promise.all([read(), read(), read()])).toEqual([counts(1), counts(1), counts(1)]);
  now = 29_999;
  expect(await read()).toEqual(counts(1));
  now = 30_000;
  expect(await read()).toEqual(counts(2));
  expect(reads).toBe(2);
});

test('a scrape waits for a slow read only so long, then answers with the counts read before; a failed read keeps them', async () => {
  let now = 0;
  let answer: (() => void) | null = null;
  let fail = false;
  let reads = 0;
  const read = cachedStoredCounts(
    () => {
      reads++;
      if (fail) return Promise.reject(new Error('the database is away'));
      return reads === 1 ? Promise.resolve(counts(1)) : new Promise<StoredCounts>((resolve) => (answer = () => resolve(counts(2))));
    },
    { maxAgeMs: 1000, waitMs: 10, now: () => now },
  );
  expect(await read()).toEqual(counts(1));
  now = 1000;
  // The second read hangs: the scrape gets the first counts after its short wait, and no second read starts.
  expect(await read()).toEqual(counts(1));
  expect(await read()).toEqual(counts(1));
  expect(reads).toBe(2);
  answer!();
  expect(await read()).toEqual(counts(2));
  fail = true;
  now = 2000;
  expect(await read()).toEqual(counts(2));
  expect(reads).toBe(3);
});

test('before any read succeeded there are no counts', async () => {
  const read = cachedStoredCounts(() => Promise.reject(new Error('the database is away')));
  expect(await read()).toBeNull();
});
