/**
 * The Store contract of issue 40, on every backend: API keys with a label and
 * caps, kept (revoked) after revocation, with a "last used" time; and the
 * retention sweep of old mail, which keeps each inbox's message count.
 */
import { test, expect } from '@playwright/test';
import { newMessage } from '../../support/new-message.ts';
import { BACKENDS } from '../../support/backends.ts';
import type { Store } from '../../../src/server/storage/contract/types.ts';

const T0 = 1_800_000_000_000;

for (const backend of BACKENDS) {
  test.describe(`the ${backend.name} store`, () => {
    test.skip(backend.skip !== null, backend.skip ?? '');

    async function open(now: () => number): Promise<Store> {
      const handle = await backend.open({ now });
      return { ...handle.store, close: handle.close };
    }

    test('an API key keeps its label and caps, is listed without ever its key, and stays listed once revoked', async () => {
      let now = T0;
      const store = await open(() => now);
      try {
        const user = await store.createUser({ email: 'ci@example.com', planId: 'premium' });
        await store.addApiKey(user.id, 'a'.repeat(64), { label: 'ci-runner-1', caps: { maxInboxes: 5, requestsPerMinute: 600, maxStreams: 2 } });
        now += 1000;
        await store.addApiKey(user.id, 'b'.repeat(64));
        const found = await store.findApiKey('a'.repeat(64));
        expect(found?.user).toMatchObject({ id: user.id, email: 'ci@example.com', planId: 'premium' });
        expect(found?.key).toMatchObject({ id: 'key_aaaaaaaaaaaa', label: 'ci-runner-1', caps: { maxInboxes: 5, requestsPerMinute: 600, maxStreams: 2 }, createdAt: T0, lastUsedAt: null, revokedAt: null, configured: false });
        expect((await store.findApiKey('b'.repeat(64)))?.key.caps).toEqual({});

        await store.touchApiKey('a'.repeat(64), T0 + 5000);
        expect((await store.findApiKey('a'.repeat(64)))?.key.lastUsedAt).toBe(T0 + 5000);

        now += 1000;
        expect(await store.revokeApiKey('a'.repeat(64))).toEqual({ userId: user.id });
        expect(await store.revokeApiKey('a'.repeat(64))).toBeNull();
        expect(await store.findApiKey('a'.repeat(64))).toBeNull();
        expect(await store.findUserByApiKeyHash('a'.repeat(64))).toBeNull();
        const listed = await store.listApiKeys();
        expect(listed.map((k) => [k.id, k.label, k.revokedAt])).toEqual([['key_aaaaaaaaaaaa', 'ci-runner-1', T0 + 2000], ['key_bbbbbbbbbbbb', null, null]]);

        // Added again (a configured key after a restart), a revoked key starts over.
        await store.addApiKey(user.id, 'a'.repeat(64), { configured: true });
        expect((await store.findApiKey('a'.repeat(64)))?.key).toMatchObject({ revokedAt: null, configured: true, label: null, caps: {} });
      } finally {
        await store.close();
      }
    });

    test('the retention sweep deletes mail received before the cutoff in every inbox, keeping each count, and leaves newer mail', async () => {
      const store = await open(() => T0);
      try {
        const [domain] = await store.syncDomains(['inboxkit.test']);
        const inboxes = [];
        for (const name of ['a', 'b', 'c']) {
          const created = await store.createInbox({ localPart: name, domainId: domain!.id, ownerUserId: null, label: null, tokenHash: `h-${name}`, createdAt: T0, expiresAt: null });
          if (created === 'address_taken') throw new Error('taken');
          inboxes.push(created);
        }
        const [a, b, c] = inboxes as [(typeof inboxes)[0], (typeof inboxes)[0], (typeof inboxes)[0]];
        await store.insertMessage([a.id, b.id], newMessage('old'), T0);
        await store.insertMessage([a.id], newMessage('newer'), T0 + 60_000);
        await store.insertMessage([c.id], newMessage('newest'), T0 + 120_000);

        // One inbox per call: the sweep is bounded, the rest waits for the next call.
        expect(await store.sweepOldMessages(T0 + 60_000, 1)).toBe(1);
        expect(await store.sweepOldMessages(T0 + 60_000, 10)).toBe(1);
        expect(await store.sweepOldMessages(T0 + 60_000, 10)).toBe(0);
        expect((await store.listMessages(a.id, { cursor: null, limit: 10 })).items.map((m) => m.subject)).toEqual(['newer']);
        expect((await store.findInboxById(a.id))!.messageCount).toBe(1);
        expect((await store.findInboxById(b.id))!.messageCount).toBe(0);
        expect((await store.findInboxById(c.id))!.messageCount).toBe(1);
        // A seq is still never reused.
        const [next] = await store.insertMessage([b.id], newMessage('after'), T0 + 130_000);
        expect(next!.seq).toBe(2);
      } finally {
        await store.close();
      }
    });
  });
}
