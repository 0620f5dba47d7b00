import { startServer, createEventBus } from '../../../src/server/index.ts';
import type { BusEvent } from '../../../src/server/index.ts';
import { projectDatabase } from '../../support/backends.ts';
import { test, expect, expectError, apiOf, KEY_A } from './fixtures.ts';

test.describe('with a one-minute inbox lifetime', () => {
  test.use({ serverOptions: { inboxTtlSeconds: 60 } });

  test('an inbox stops being active the moment it expires, for its token and for its owner', async ({ api, clock }) => {
    const guest = (await api('POST', '/inboxes')).body.data;
    const owned = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data;
    expect(Date.parse(guest.expiresAt)).toBe(clock.now + 60_000);
    clock.advance(59_999);
    expect((await api('GET', `/inboxes/${guest.id}`, { inboxToken: guest.token })).status).toBe(200);
    expect((await api('GET', '/inboxes', { bearer: KEY_A })).body.data.items).toHaveLength(1);
    clock.advance(1);
    expectError(await api('GET', `/inboxes/${guest.id}`, { inboxToken: guest.token }), 401, 'unauthorized');
    expectError(await api('GET', `/inboxes/${owned.id}`, { bearer: KEY_A }), 404, 'inbox_not_found');
    expectError(await api('DELETE', `/inboxes/${owned.id}`, { bearer: KEY_A }), 404, 'inbox_not_found');
    expect((await api('GET', '/inboxes', { bearer: KEY_A })).body.data.items).toEqual([]);
  });

  test('the address of an expired inbox can be taken again before the sweep', async ({ api, clock }) => {
    await api('POST', '/inboxes', { body: { localPart: 'reuse' } });
    expectError(await api('POST', '/inboxes', { body: { localPart: 'reuse' } }), 409, 'address_taken');
    clock.advance(60_000);
    expect((await api('POST', '/inboxes', { body: { localPart: 'reuse' } })).status).toBe(200);
  });
});

test('the sweeper deletes expired inboxes on its own and tells their subscribers inbox.expired', async ({ clock }) => {
  const bus = createEventBus();
  const database = await projectDatabase();
  const server = await startServer({ ...database.options, inboxTtlSeconds: 60, sweepIntervalMs: 20, bus, now: () => clock.now });
  try {
    const api = apiOf(server);
    const expiring = (await api('POST', '/inboxes')).body.data;
    const events: BusEvent[] = [];
    const expired = new Promise<void>((resolve) => {
      bus.subscribe(expiring.id, (event) => {
        events.push(event);
        resolve();
      });
    });
    clock.advance(30_000);
    const younger = (await api('POST', '/inboxes')).body.data;
    clock.advance(30_000);
    await expired;
    expect(events).toEqual([{ type: 'inbox.expired', inboxId: expiring.id }]);
    // Swept: nothing left to sweep for it; the younger one is still active.
    expect(await server.sweepExpired()).toEqual([]);
    expect((await api('GET', `/inboxes/${younger.id}`, { inboxToken: younger.token })).status).toBe(200);
  } finally {
    await server.close();
    await database.drop();
  }
});

test('sweeping on demand returns the ids of the expired inboxes', async ({ clock }) => {
  const database = await projectDatabase();
  const server = await startServer({ ...database.options, inboxTtlSeconds: 60, now: () => clock.now });
  try {
    const api = apiOf(server);
    const a = (await api('POST', '/inboxes')).body.data;
    const b = (await api('POST', '/inboxes')).body.data;
    expect(await server.sweepExpired()).toEqual([]);
    clock.advance(60_000);
    expect((await server.sweepExpired()).sort()).toEqual([a.id, b.id].sort());
  } finally {
    await server.close();
    await database.drop();
  }
});

test('one sweep deletes at most 10 passes of --sweep-batch inboxes, a user\'s among the first though a guest\'s expired before it; the rest go at the next sweep', async ({ clock }) => {
  const database = await projectDatabase();
  const server = await startServer({ ...database.options, inboxTtlSeconds: 60, sweepBatch: 2, rateLimit: false, apiKeys: [KEY_A], now: () => clock.now });
  try {
    const api = apiOf(server);
    const guest: string[] = [];
    for (let i = 0; i < 24; i++) {
      guest.push((await api('POST', '/inboxes')).body.data.id as string);
      clock.advance(10);
    }
    const owned = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data.id as string;
    clock.advance(60_000);
    const first = await server.sweepExpired();
    expect(first).toHaveLength(20);
    // The user's inbox expired after all 24 of the guest's, and is deleted in the first pass.
    expect(first.slice(0, 2)).toEqual([guest[0], owned]);
    expect(first.slice(2)).toEqual(guest.slice(1, 19));
    expect(await server.sweepExpired()).toEqual(guest.slice(19));
    expect(await server.sweepExpired()).toEqual([]);
  } finally {
    await server.close();
    await database.drop();
  }
});

test.describe('with inboxes that never expire', () => {
  test.use({ serverOptions: { inboxTtlSeconds: null } });

  test('expiresAt is null and the inbox outlives any clock', async ({ api, clock }) => {
    const inbox = (await api('POST', '/inboxes')).body.data;
    expect(inbox.expiresAt).toBeNull();
    expect((await api('GET', '/me')).body.data.plan.entitlements.inboxTtlSeconds).toBeNull();
    clock.advance(10 * 365 * 86_400_000);
    expect((await api('GET', `/inboxes/${inbox.id}`, { inboxToken: inbox.token })).status).toBe(200);
  });
});

test('DELETE tells the inbox\'s subscribers inbox.deleted', async () => {
  const bus = createEventBus();
  const database = await projectDatabase();
  const server = await startServer({ ...database.options, bus });
  try {
    const api = apiOf(server);
    const inbox = (await api('POST', '/inboxes')).body.data;
    const events: BusEvent[] = [];
    bus.subscribe(inbox.id, (e) => events.push(e));
    await api('DELETE', `/inboxes/${inbox.id}`, { inboxToken: inbox.token });
    expect(events).toEqual([{ type: 'inbox.deleted', inboxId: inbox.id }]);
  } finally {
    await server.close();
    await database.drop();
  }
});
