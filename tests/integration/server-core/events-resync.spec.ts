/**
 * `GET /me/events` after a gap of the event bus (a `resync`, as the
 * LISTEN/NOTIFY bus publishes after it reconnected): the stream has no
 * replay, so the server lists the caller's inboxes again and sends what the
 * gap hid — once. The gap is made by changing the store behind the bus's
 * back, so the test runs on either backend (SQLite here, PostgreSQL in the
 * `integration-postgres` project).
 */
import { startServer } from '../../../src/server/index.ts';
import type { BusEvent, EventBus, RunningServer, Store } from '../../../src/server/index.ts';
import type { NewMessage } from '../../../src/server/storage/contract/types.ts';
import { openProjectStore } from '../../support/backends.ts';
import { recordCallerEvents } from '../multi-node/cluster.ts';
import type { CallerEventsRecorder } from '../multi-node/cluster.ts';
import { apiOf, expect, test } from './fixtures.ts';

const OPERATOR = `tmo_${'r'.repeat(32)}`;

function message(subject: string): NewMessage {
  return {
    raw: new TextEncoder().encode(`Subject: ${subject}\r\n\r\nbody\r\n`),
    from: { address: 'sender@example.com', name: 'Sender' },
    to: [{ address: 'x@inboxkit.test', name: '' }],
    cc: [],
    replyTo: [],
    subject,
    headers: { subject },
    text: 'body',
    rawHtml: null,
    sanitizedHtml: null,
    envelopeFrom: 'sender@example.com',
    attachments: [],
  };
}

/** A bus that says it may have gaps, so `/me/events` keeps what a catch-up needs. */
function gappyBus(inner: EventBus): EventBus & { published: BusEvent[] } {
  const published: BusEvent[] = [];
  return {
    published,
    mayResync: true,
    publish: (event) => {
      published.push(event);
      inner.publish(event);
    },
    subscribe: (inboxId, listener) => inner.subscribe(inboxId, listener),
    subscribeAll: (listener) => inner.subscribeAll(listener),
  };
}

let server: RunningServer | null = null;
let store: Store;
let bus: ReturnType<typeof gappyBus>;
let closeStore: (() => Promise<void>) | null = null;
let events: CallerEventsRecorder | null = null;

test.beforeEach(async () => {
  const project = await openProjectStore();
  store = project.store;
  closeStore = project.close;
  bus = gappyBus(project.bus);
  server = await startServer({ store, bus, operatorToken: OPERATOR, rateLimit: false });
});

test.afterEach(async () => {
  events?.close();
  events = null;
  // Nothing to close when the test was skipped (no PostgreSQL) before it started.
  await server?.close();
  server = null;
  await closeStore?.();
  closeStore = null;
});

test('after a resync the caller-wide stream sends the inboxes created and deleted and the mail stored during the gap, once', async () => {
  if (!server) throw new Error('no server');
  const api = apiOf(server);
  const kept = (await api('POST', '/inboxes')).body.data;
  const doomed = (await api('POST', '/inboxes')).body.data;
  events = await recordCallerEvents(server.apiUrl, { authorization: `Bearer ${OPERATOR}` });

  // The gap: the store changes, the bus says nothing.
  const [domain] = await store.listDomains();
  const hidden = await store.createInbox({ localPart: 'hidden', domainId: domain!.id, ownerUserId: null, label: null, tokenHash: 'h', createdAt: Date.now(), expiresAt: null });
  if (hidden === 'address_taken') throw new Error('address taken');
  const [missed] = await store.insertMessage([kept.id], message('missed'), Date.now());
  await store.deleteInbox(doomed.id);

  // Two resyncs in a row (several per-inbox ones come after a reconnect) catch up once.
  bus.publish({ type: 'resync', inboxId: '*' });
  bus.publish({ type: 'resync', inboxId: kept.id });
  await events.until((e) => e.event === 'inbox.deleted' && e.data.inboxId === doomed.id);
  await events.until((e) => e.event === 'message' && e.data.inboxId === kept.id);
  await events.until((e) => e.event === 'inbox.created' && e.data.id === hidden.id);

  // The late live event of the message caught up is not sent again; the next one is.
  bus.publish({ type: 'message', inboxId: kept.id, message: missed! });
  const [next] = await store.insertMessage([kept.id], message('live'), Date.now());
  bus.publish({ type: 'message', inboxId: kept.id, message: next! });
  await events.until((e) => e.event === 'message' && (e.data.message as { subject: string }).subject === 'live');

  const seen = events.events.map((e) => `${e.event} ${String(e.data.inboxId ?? e.data.id)} ${(e.data.message as { seq?: number } | undefined)?.seq ?? ''}`.trim());
  expect(seen.toSorted()).toEqual([`inbox.created ${hidden.id}`, `inbox.deleted ${doomed.id}`, `message ${kept.id} 1`, `message ${kept.id} 2`].toSorted());
  expect(events.ended).toBe(false);
});
