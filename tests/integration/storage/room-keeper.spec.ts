/**
 * The stored-bytes cap's keeper (src/server/intake/make-room.ts) on a real
 * in-memory SQLite store: it evicts down to a low-water mark an eighth below
 * the cap, so a store that mail keeps full is measured once per eighth of the
 * cap delivered, not after every message.
 */
import { test, expect } from '@playwright/test';
import { newMessage } from '../../support/new-message.ts';
import { BACKENDS } from '../../support/backends.ts';
import { createRoomKeeper } from '../../../src/server/intake/make-room.ts';

const T0 = 1_800_000_000_000;
const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!;

test('a full store is evicted down to the low-water mark, the largest inbox first, and measured again only after an eighth of the cap more', async () => {
  const { store, close } = await sqlite.open();
  try {
    const domainId = (await store.syncDomains(['inboxkit.test']))[0]!.id;
    const inbox = async (localPart: string) => {
      const created = await store.createInbox({ localPart, domainId, ownerUserId: null, label: null, tokenHash: `h-${localPart}`, createdAt: T0, expiresAt: null });
      if (created === 'address_taken') throw new Error('taken');
      return created;
    };
    const [flooder, neighbour] = [await inbox('flooder'), await inbox('neighbour')];
    let measured = 0;
    const counting = { ...store, storedMessageBytes: () => (measured++, store.storedMessageBytes()) };
    const logs: Array<Record<string, unknown>> = [];
    const keeper = createRoomKeeper(counting, 8000, { info: (obj) => logs.push(obj as Record<string, unknown>) });
    const deliver = async (inboxId: string, n: number) => {
      await store.insertMessage([inboxId], newMessage(`m${n}`, { raw: new Uint8Array(1000) }), T0 + n);
      return keeper.stored(1000);
    };

    await deliver(neighbour.id, 0);
    for (let n = 1; n <= 7; n++) expect(await deliver(flooder.id, n)).toBe(0);
    expect(await store.storedMessageBytes()).toBe(8000);
    expect(logs).toEqual([]);
    // 9,000 bytes held against a cap of 8,000: down to 7,000 (the cap less an eighth), from the flooder only.
    expect(await deliver(flooder.id, 8)).toBe(2);
    expect(await store.storedMessageBytes()).toBe(7000);
    expect((await store.findInboxById(neighbour.id))?.messageCount).toBe(1);
    expect(logs).toEqual([expect.objectContaining({ evicted: 2, inboxes: { [flooder.id]: 2 }, storedBytes: 7000, maxBytes: 8000 })]);

    // The next 1,000 bytes fit under the cap without a query; the second thousand pass it and evict again.
    const before = measured;
    expect(await deliver(flooder.id, 9)).toBe(0);
    expect(measured).toBe(before);
    expect(await deliver(flooder.id, 10)).toBe(2);
    expect(measured).toBe(before + 1);
  } finally {
    await close();
  }
});

test('deliveries that finish together are kept one after another: the store is evicted once, not once per delivery', async () => {
  const { store, close } = await sqlite.open();
  try {
    const domainId = (await store.syncDomains(['inboxkit.test']))[0]!.id;
    const created = await store.createInbox({ localPart: 'busy', domainId, ownerUserId: null, label: null, tokenHash: 'h-busy', createdAt: T0, expiresAt: null });
    if (created === 'address_taken') throw new Error('taken');
    const keeper = createRoomKeeper(store, 8000, { info: () => {} });
    for (let n = 0; n < 12; n++) await store.insertMessage([created.id], newMessage(`m${n}`, { raw: new Uint8Array(1000) }), T0 + n);
    const evicted = await Promise.all(Array.from({ length: 12 }, () => keeper.stored(1000)));
    expect(evicted.reduce((a, b) => a + b, 0)).toBe(5);
    expect(await store.storedMessageBytes()).toBe(7000);
  } finally {
    await close();
  }
});
