/**
 * The expiry and retention sweeps share their batches out fairly, on every
 * backend: oldest first within an owner, round robin between owners (an
 * API-key user; a guest's creating address), so one guest's 1,000 expired
 * inboxes delay another caller's deletion by one inbox per round.
 */
import { test, expect } from '@playwright/test';
import { newMessage } from '../../support/new-message.ts';
import { BACKENDS } from '../../support/backends.ts';
import type { Store } from '../../../src/server/storage/contract/types.ts';

const T0 = 1_800_000_000_000;

for (const backend of BACKENDS) {
  test.describe(`the ${backend.name} store`, () => {
    test.skip(backend.skip !== null, backend.skip ?? '');

    async function open(): Promise<Store> {
      const handle = await backend.open({ now: () => T0 });
      return { ...handle.store, close: handle.close };
    }

    /** Makes an inbox of `owner` (a user id, or a guest address) expiring at `expiresAt`. */
    async function inboxOf(store: Store, domainId: string, name: string, owner: { userId?: string; address?: string }, expiresAt: number | null) {
      const created = await store.createInbox({
        localPart: name,
        domainId,
        ownerUserId: owner.userId ?? null,
        creatorAddress: owner.address ?? null,
        label: null,
        tokenHash: `h-${name}`,
        createdAt: T0,
        expiresAt,
      });
      if (created === 'address_taken') throw new Error(`${name} taken`);
      return created;
    }

    test('a batch of the expiry sweep takes every owner\'s oldest expired inbox before any owner\'s second, each round in expiry order', async () => {
      test.setTimeout(120_000);
      const store = await open();
      try {
        const [domain] = await store.syncDomains(['inboxkit.test']);
        const user = await store.createUser({ email: 'ci@example.com', planId: 'premium' });
        // A guest at 198.51.100.7 let 1,000 inboxes expire first; a user's and another guest's expired later.
        const flood: string[] = [];
        for (let i = 0; i < 1000; i++) flood.push((await inboxOf(store, domain!.id, `flood-${i}`, { address: '198.51.100.7' }, T0 + i)).id);
        const userOld = await inboxOf(store, domain!.id, 'user-old', { userId: user.id }, T0 + 5000);
        const userNew = await inboxOf(store, domain!.id, 'user-new', { userId: user.id }, T0 + 6000);
        const other = await inboxOf(store, domain!.id, 'other-guest', { address: '203.0.113.9' }, T0 + 5500);
        const alive = await inboxOf(store, domain!.id, 'alive', { address: '203.0.113.9' }, T0 + 100_000);

        const now = T0 + 10_000;
        // Round one, in expiry order: the flood's oldest, the user's oldest, the other guest's; then round two.
        expect(await store.sweepExpired(now, 4)).toEqual([flood[0], userOld.id, other.id, flood[1]]);
        // Each batch starts its rounds afresh: the flood's oldest left and the user's last, then the flood's next.
        expect(await store.sweepExpired(now, 3)).toEqual([flood[2], userNew.id, flood[3]]);
        // The rest of the flood, oldest first, in bounded batches; the live inbox stays.
        const rest: string[] = [];
        for (;;) {
          const batch = await store.sweepExpired(now, 250);
          expect(batch.length).toBeLessThanOrEqual(250);
          rest.push(...batch);
          if (batch.length < 250) break;
        }
        expect(rest).toEqual(flood.slice(4));
        expect(await store.findInboxById(alive.id)).not.toBeNull();
        expect(await store.sweepExpired(now)).toEqual([]);
      } finally {
        await store.close();
      }
    });

    test('a batch of the retention sweep visits the inboxes with the oldest mail first, every owner\'s before any owner\'s second', async () => {
      const store = await open();
      try {
        const [domain] = await store.syncDomains(['inboxkit.test']);
        const user = await store.createUser({ email: 'ci@example.com', planId: 'premium' });
        const flood = [];
        for (let i = 0; i < 20; i++) flood.push(await inboxOf(store, domain!.id, `flood-${i}`, { address: '198.51.100.7' }, null));
        const mine = await inboxOf(store, domain!.id, 'mine', { userId: user.id }, null);
        for (const [i, inbox] of flood.entries()) await store.insertMessage([inbox.id], newMessage(`flood ${i}`), T0 + i);
        await store.insertMessage([mine.id], newMessage('mine'), T0 + 50);

        // Two inboxes per batch: the flood's oldest and the user's, not the flood's first two.
        expect(await store.sweepOldMessages(T0 + 1000, 2)).toBe(2);
        expect((await store.findInboxById(mine.id))!.messageCount).toBe(0);
        expect((await store.findInboxById(flood[0]!.id))!.messageCount).toBe(0);
        expect((await store.findInboxById(flood[1]!.id))!.messageCount).toBe(1);
        expect(await store.sweepOldMessages(T0 + 1000, 100)).toBe(19);
      } finally {
        await store.close();
      }
    });
  });
}
