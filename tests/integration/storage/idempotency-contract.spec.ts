/**
 * The store's idempotency keys (issue 48), on every backend: the first
 * claim holds a key, a later one finds it with its body's hash and, once
 * settled, its answer; racing claims hold it once; keys expire and are
 * bounded per caller and in all.
 */
import { test, expect } from '@playwright/test';
import { BACKENDS } from '../../support/backends.ts';
import type { IdempotencyBounds, Store } from '../../../src/server/storage/contract/types.ts';

const T0 = 1_800_000_000_000;
const BOUNDS: IdempotencyBounds = { perOwner: 3, total: 5, ttlMs: 60_000 };
const ref = (owner: string, key: string) => ({ owner, key });

for (const backend of BACKENDS) {
  test.describe(`the ${backend.name} store`, () => {
    test.skip(backend.skip !== null, backend.skip ?? '');
    let store: Store;
    let close: () => Promise<void>;

    test.beforeEach(async () => {
      ({ store, close } = await backend.open());
    });
    test.afterEach(async () => close());

    test('the first claim holds the key; a later one finds its body hash, then its answer once settled', async () => {
      expect(await store.claimIdempotencyKey(ref('alice', 'k1'), 'hash-a', T0, BOUNDS)).toEqual({ kind: 'new' });
      expect(await store.claimIdempotencyKey(ref('alice', 'k1'), 'hash-b', T0 + 1, BOUNDS)).toEqual({ kind: 'seen', bodyHash: 'hash-a', answer: null });
      await store.settleIdempotencyKey(ref('alice', 'k1'), '{"id":"re_1"}');
      expect(await store.claimIdempotencyKey(ref('alice', 'k1'), 'hash-a', T0 + 2, BOUNDS)).toEqual({ kind: 'seen', bodyHash: 'hash-a', answer: '{"id":"re_1"}' });
      expect(await store.claimIdempotencyKey(ref('bob', 'k1'), 'hash-a', T0 + 3, BOUNDS)).toEqual({ kind: 'new' });
    });

    test('of claims racing for one key, exactly one holds it', async () => {
      const claims = await Promise.all(Array.from({ length: 8 }, () => store.claimIdempotencyKey(ref('alice', 'race'), 'h', T0, BOUNDS)));
      expect(claims.filter((c) => c.kind === 'new')).toHaveLength(1);
    });

    test('a forgotten key, or one older than its time, may be claimed anew', async () => {
      await store.claimIdempotencyKey(ref('alice', 'k1'), 'h', T0, BOUNDS);
      await store.forgetIdempotencyKey(ref('alice', 'k1'));
      expect(await store.claimIdempotencyKey(ref('alice', 'k1'), 'h', T0 + 1, BOUNDS)).toEqual({ kind: 'new' });
      expect(await store.claimIdempotencyKey(ref('alice', 'k1'), 'h', T0 + 1 + BOUNDS.ttlMs, BOUNDS)).toEqual({ kind: 'new' });
    });

    test('a caller keeps its newest keys up to its bound, and the store its newest in all', async () => {
      for (let n = 0; n < 4; n++) await store.claimIdempotencyKey(ref('alice', `a${n}`), 'h', T0 + n, BOUNDS);
      expect((await store.claimIdempotencyKey(ref('alice', 'a0'), 'h', T0 + 10, BOUNDS)).kind).toBe('new');
      expect((await store.claimIdempotencyKey(ref('alice', 'a3'), 'h', T0 + 11, BOUNDS)).kind).toBe('seen');
      for (let n = 0; n < 3; n++) await store.claimIdempotencyKey(ref(`caller${n}`, 'k'), 'h', T0 + 20 + n, BOUNDS);
      // Six keys then, five kept: the oldest in all, alice's a2, went.
      expect((await store.claimIdempotencyKey(ref('caller0', 'k'), 'h', T0 + 30, BOUNDS)).kind).toBe('seen');
      expect((await store.claimIdempotencyKey(ref('alice', 'a2'), 'h', T0 + 31, BOUNDS)).kind).toBe('new');
    });
  });
}
