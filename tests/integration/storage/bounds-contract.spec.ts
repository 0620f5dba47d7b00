/**
 * The store's part in the bounds of issue 31, on every backend: sessions end
 * with the API key that made them, delivery faults are shared and counted
 * atomically, guest inboxes are counted per client address, and the bytes
 * of mail held can be measured and cut down from the largest inboxes.
 */
import { test, expect } from '@playwright/test';
import { newMessage } from '../../support/new-message.ts';
import { BACKENDS } from '../../support/backends.ts';
import type { Store } from '../../../src/server/storage/contract/types.ts';
import { EVICTION_PASS_MAX_MESSAGES } from '../../../src/server/storage/contract/eviction.ts';

const T0 = 1_800_000_000_000;

for (const backend of BACKENDS) {
  test.describe(`the ${backend.name} store`, () => {
    test.skip(backend.skip !== null, backend.skip ?? '');
    let store: Store;
    let close: () => Promise<void>;
    let domainId: string;

    test.beforeEach(async () => {
      const handle = await backend.open();
      store = handle.store;
      close = handle.close;
      domainId = (await store.syncDomains(['inboxkit.test']))[0]!.id;
    });
    test.afterEach(async () => close());

    const inbox = async (localPart: string, extra: { ownerUserId?: string | null; creatorAddress?: string | null; expiresAt?: number | null } = {}) => {
      const created = await store.createInbox({ localPart, domainId, ownerUserId: null, label: null, tokenHash: `h-${localPart}`, createdAt: T0, expiresAt: null, ...extra });
      if (created === 'address_taken') throw new Error('taken');
      return created;
    };

    test('revoking an API key revokes the sessions made under it and no other', async () => {
      const user = await store.createUser({ email: 'u@example.test', planId: 'premium' });
      await store.addApiKey(user.id, 'key-a');
      await store.addApiKey(user.id, 'key-b');
      await store.addConnectCode({ codeHash: 'code-a', userId: user.id, challenge: 'c', redirectUri: 'https://x/cb', expiresAt: T0 + 1000, keyHash: 'key-a' });
      expect((await store.spendConnectCode('code-a'))?.keyHash).toBe('key-a');
      await store.addSession({ tokenHash: 's-a', userId: user.id, expiresAt: T0 + 1e9, codeHash: 'code-a', parentKeyHash: 'key-a' });
      await store.addSession({ tokenHash: 's-b', userId: user.id, expiresAt: T0 + 1e9, codeHash: null, parentKeyHash: 'key-b' });
      expect(await store.revokeApiKey('key-a')).toEqual({ userId: user.id });
      expect((await store.findSession('s-a'))?.revoked).toBe(true);
      expect((await store.findSession('s-b'))?.revoked).toBe(false);
    });

    test('removing a configured key revokes its sessions too', async () => {
      const user = await store.createUser({ email: 'c@example.test', planId: 'premium' });
      await store.addApiKey(user.id, 'configured', { configured: true });
      await store.addSession({ tokenHash: 's-c', userId: user.id, expiresAt: T0 + 1e9, codeHash: null, parentKeyHash: 'configured' });
      expect(await store.removeConfiguredApiKeysExcept([])).toBe(1);
      expect((await store.findSession('s-c'))?.revoked).toBe(true);
    });

    test('a delivery fault is replaced by the next, counted down atomically by racing takers, and goes with its inbox', async () => {
      const a = await inbox('a');
      const fault = { inboxId: a.id, code: 451, enhancedStatus: '4.3.0', message: 'later', remaining: 3, delayMs: 0, createdAt: T0 };
      await store.putDeliveryFault({ ...fault, remaining: 1 });
      await store.putDeliveryFault(fault);
      expect(await store.findDeliveryFault(a.id)).toEqual(fault);
      const taken = await Promise.all(Array.from({ length: 5 }, () => store.takeDeliveryFault(a.id)));
      // Three attempts met the fault (remaining 3, 2, 1 before each), two found none.
      expect(taken.map((t) => t?.remaining ?? null).sort()).toEqual([1, 2, 3, null, null]);
      expect(await store.findDeliveryFault(a.id)).toBeNull();
      await store.putDeliveryFault({ ...fault, remaining: null });
      expect((await store.takeDeliveryFault(a.id))?.remaining).toBeNull();
      expect(await store.findDeliveryFault(a.id)).not.toBeNull();
      await store.deleteInbox(a.id);
      expect(await store.findDeliveryFault(a.id)).toBeNull();
      expect(await store.deleteDeliveryFault(a.id)).toBe(false);
    });

    test('active guest inboxes are counted per creating address; owned and expired ones are not', async () => {
      const user = await store.createUser({ email: 'o@example.test', planId: 'premium' });
      await inbox('g1', { creatorAddress: '10.0.0.1' });
      await inbox('g2', { creatorAddress: '10.0.0.1' });
      await inbox('g3', { creatorAddress: '10.0.0.2' });
      await inbox('owned', { creatorAddress: '10.0.0.1', ownerUserId: user.id });
      await inbox('gone', { creatorAddress: '10.0.0.1', expiresAt: T0 + 10 });
      expect(await store.countActiveGuestInboxesByAddress('10.0.0.1', T0 + 100)).toBe(2);
      expect(await store.countActiveGuestInboxesByAddress('10.0.0.2', T0 + 100)).toBe(1);
      expect(await store.countActiveGuestInboxesByAddress('10.0.0.3', T0 + 100)).toBe(0);
    });

    test('creates within a cap are counted with the insert: 80 at once against a cap of 20 make 20 inboxes, the rest cap_reached', async () => {
      const user = await store.createUser({ email: 'cap@example.test', planId: 'premium' });
      const fields = (n: number, extra: { ownerUserId?: string | null; creatorAddress?: string | null }) => ({
        localPart: `cap${n}`, domainId, ownerUserId: null, label: null, tokenHash: `hc-${n}`, createdAt: T0, expiresAt: null, ...extra,
      });
      // An expired guest inbox and a user's inbox of the same address do not count.
      await inbox('expired-guest', { creatorAddress: '10.9.0.1', expiresAt: T0 - 1 });
      await inbox('owned-same-address', { creatorAddress: '10.9.0.1', ownerUserId: user.id });
      const guests = await Promise.all(Array.from({ length: 80 }, (_, n) => store.createInboxWithinCap(fields(n, { creatorAddress: '10.9.0.1' }), { count: 'guestsOfAddress', max: 20 })));
      expect(guests.filter((g) => g === 'cap_reached')).toHaveLength(60);
      expect(await store.countActiveGuestInboxesByAddress('10.9.0.1', T0)).toBe(20);
      // Another address has its own count.
      expect(await store.createInboxWithinCap(fields(100, { creatorAddress: '10.9.0.2' }), { count: 'guestsOfAddress', max: 20 })).toMatchObject({ localPart: 'cap100' });

      const owned = await Promise.all(Array.from({ length: 30 }, (_, n) => store.createInboxWithinCap(fields(200 + n, { ownerUserId: user.id }), { count: 'ownedBy', max: 5 })));
      expect(owned.filter((o) => o !== 'cap_reached')).toHaveLength(4);
      expect(await store.countActiveInboxesByOwner(user.id, T0)).toBe(5);
      // Nothing was written for a refused create: its address is free.
      const refusedAt = owned.findIndex((o) => o === 'cap_reached');
      expect(await store.createInbox(fields(200 + refusedAt, {}))).toMatchObject({ localPart: `cap${200 + refusedAt}` });
    });

    test('stored bytes are the sum of raw sizes; eviction takes the oldest messages of the inbox that is largest at each step', async () => {
      const [big, small] = [await inbox('big'), await inbox('small')];
      const sized = (subject: string, bytes: number) => newMessage(subject, { raw: new Uint8Array(bytes) });
      await store.insertMessage([small.id], sized('s1', 1000), T0);
      await store.insertMessage([big.id], sized('b1', 3000), T0 + 1);
      await store.insertMessage([big.id], sized('b2', 3000), T0 + 2);
      expect(await store.storedMessageBytes()).toBe(7000);
      const first = await store.evictFromLargestInboxes(1);
      expect(first).toEqual([expect.objectContaining({ inboxId: big.id, size: 3000 })]);
      expect((await store.listMessages(big.id, { cursor: null, limit: 10 })).items.map((m) => m.subject)).toEqual(['b2']);
      expect((await store.findInboxById(big.id))?.messageCount).toBe(1);
      expect(await store.storedMessageBytes()).toBe(4000);
      // 3,500 bytes: b2 (big still holds the most), then s1 from the inbox that is largest after it.
      const next = await store.evictFromLargestInboxes(3500);
      expect(next.map((m) => [m.inboxId, m.size])).toEqual([[big.id, 3000], [small.id, 1000]]);
      expect((await store.findInboxById(small.id))?.messageCount).toBe(0);
      expect(await store.evictFromLargestInboxes(1)).toEqual([]);
      expect(await store.storedMessageBytes()).toBe(0);
    });

    test('eviction between inboxes of equal size takes the smaller inbox id first, and one pass stops at its bound of messages', async () => {
      const [a, b] = [await inbox('a'), await inbox('b')];
      for (const target of [a, b]) await store.insertMessage([target.id], newMessage('m', { raw: new Uint8Array(100) }), T0);
      const [first] = await store.evictFromLargestInboxes(1);
      expect(first?.inboxId).toBe([a.id, b.id].sort()[0]);

      const many = await inbox('many');
      for (let i = 0; i < EVICTION_PASS_MAX_MESSAGES + 5; i++) await store.insertMessage([many.id], newMessage(`n${i}`, { raw: new Uint8Array(10) }), T0 + i);
      expect(await store.evictFromLargestInboxes(Number.MAX_SAFE_INTEGER)).toHaveLength(EVICTION_PASS_MAX_MESSAGES);
    });
  });
}
