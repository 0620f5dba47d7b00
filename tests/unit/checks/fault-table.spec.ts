/**
 * The per-inbox fault table: counting attempts, the enhanced status codes it
 * chooses, and clearing with the inbox. On a real (in-memory SQLite) store:
 * faults live there, so every node on one database applies them.
 */
import { test as base, expect } from '@playwright/test';
import { createDeliveryFaults } from '../../../src/server/faults/table.ts';
import type { DeliveryFaults } from '../../../src/server/faults/table.ts';
import { defaultEnhancedStatus } from '../../../src/server/faults/replies.ts';
import { createSqliteStore } from '../../../src/server/storage/sqlite.ts';
import type { Store } from '../../../src/server/storage/contract/types.ts';

/** A store with two inboxes, `a` and `b` (their ids), and the fault table over it. */
const test = base.extend<{ store: Store; faults: DeliveryFaults; ids: { a: string; b: string } }>({
  // eslint-disable-next-line no-empty-pattern
  store: async ({}, use) => {
    const store = createSqliteStore();
    await use(store);
    await store.close();
  },
  faults: async ({ store }, use) => {
    const faults = createDeliveryFaults({ store, now: () => 0 });
    await use(faults);
    faults.close();
  },
  ids: async ({ store }, use) => {
    const [domain] = await store.syncDomains(['faults.test']);
    const make = async (localPart: string) => {
      const inbox = await store.createInbox({ localPart, domainId: domain!.id, ownerUserId: null, label: null, tokenHash: `h-${localPart}`, createdAt: 0, expiresAt: null });
      if (inbox === 'address_taken') throw new Error('taken');
      return inbox.id;
    };
    await use({ a: await make('a'), b: await make('b') });
  },
});

test('a fault with a count is used up attempt by attempt, then gone', async ({ faults, ids }) => {
  await faults.set(ids.a, { code: 451, count: 2 });
  expect((await faults.take(ids.a))?.refusal?.code).toBe(451);
  expect((await faults.get(ids.a))?.remaining).toBe(1);
  expect((await faults.take(ids.a))?.refusal?.text).toMatch(/^4\.3\.0 /);
  expect(await faults.take(ids.a)).toBeNull();
  expect(await faults.get(ids.a)).toBeNull();
});

test('a fault affects only its own inbox', async ({ faults, ids }) => {
  await faults.set(ids.a, { code: 550 });
  expect(await faults.take(ids.b)).toBeNull();
  expect((await faults.take(ids.a))?.refusal?.code).toBe(550);
  expect((await faults.take(ids.a))?.refusal?.code).toBe(550);
});

test('deleting the inbox clears its fault', async ({ store, faults, ids }) => {
  await faults.set(ids.a, { code: 550 });
  await faults.set(ids.b, { code: 451 });
  await store.deleteInbox(ids.a);
  expect(await faults.get(ids.a)).toBeNull();
  expect((await faults.get(ids.b))?.code).toBe(451);
});

test('a second table on the same store sees and counts the same fault', async ({ store, faults, ids }) => {
  const other = createDeliveryFaults({ store, now: () => 0 });
  await faults.set(ids.a, { code: 451, count: 2 });
  expect((await other.take(ids.a))?.refusal?.code).toBe(451);
  expect((await faults.get(ids.a))?.remaining).toBe(1);
  other.close();
});

test('each common reply code gets the enhanced status code its meaning calls for', () => {
  expect(Object.fromEntries([421, 450, 451, 452, 499, 550, 551, 552, 553, 554, 599].map((c) => [c, defaultEnhancedStatus(c)]))).toEqual({
    421: '4.3.2',
    450: '4.2.0',
    451: '4.3.0',
    452: '4.3.1',
    499: '4.0.0',
    550: '5.7.1',
    551: '5.1.6',
    552: '5.2.2',
    553: '5.1.3',
    554: '5.7.1',
    599: '5.0.0',
  });
});

test('closing the table ends a delay in progress', async ({ faults }) => {
  const delayed = faults.delay(600_000);
  faults.close();
  await expect(delayed).resolves.toBeUndefined();
});
