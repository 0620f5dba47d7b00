/**
 * An inbox stream opened with `include=message` catches up from the store
 * with whole messages too: when a live event skips a seq (an earlier message
 * notified late by another node) and on a bus `resync` (a bus that lost its
 * database connection). The gaps are made by storing messages behind the
 * bus's back, so the test runs on either backend (SQLite here, PostgreSQL in
 * the `integration-postgres` project).
 */
import { expect, test } from '@playwright/test';
import { newMessage } from '../../support/new-message.ts';
import { startServer } from '../../../src/server/index.ts';
import type { EventBus, RunningServer, Store } from '../../../src/server/index.ts';
import { openProjectStore } from '../../support/backends.ts';

const OPERATOR = `tmo_${'c'.repeat(32)}`;

/** A message with an HTML body, so a whole message differs visibly from its summary. */
const withHtml = (subject: string) => newMessage(subject, { rawHtml: `<p>${subject}</p>`, sanitizedHtml: `<p>${subject}</p>` });

interface StreamEvent {
  event: string;
  id: string | null;
  data: Record<string, unknown>;
}

/** Reads an event stream into a list of events, until `close()`. */
function readEvents(body: ReadableStream<Uint8Array>): { events: StreamEvent[]; until(match: (e: StreamEvent) => boolean): Promise<void> } {
  const events: StreamEvent[] = [];
  const waiters: Array<() => void> = [];
  void (async () => {
    let buffer = '';
    for await (const chunk of body) {
      buffer += Buffer.from(chunk).toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) => block.split('\n').find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? null;
        const event = field('event');
        if (event === null) continue;
        events.push({ event, id: field('id'), data: JSON.parse(field('data') ?? '{}') as Record<string, unknown> });
        for (const wake of waiters.splice(0)) wake();
      }
    }
  })().catch(() => {});
  return {
    events,
    async until(match) {
      while (!events.some(match)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

let server: RunningServer | null = null;
let store: Store;
let bus: EventBus;
let closeStore: (() => Promise<void>) | null = null;

test.beforeEach(async () => {
  const project = await openProjectStore();
  store = project.store;
  bus = project.bus;
  closeStore = project.close;
  server = await startServer({ store, bus, operatorToken: OPERATOR, rateLimit: false });
});

test.afterEach(async () => {
  await server?.close();
  server = null;
  await closeStore?.();
  closeStore = null;
});

test('a stream with include=message sends whole messages when it catches up after a skipped seq or a resync', async () => {
  if (!server) throw new Error('no server');
  const created = await fetch(`${server.apiUrl}/inboxes`, { method: 'POST', headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' }, body: '{}' });
  const inbox = ((await created.json()) as { data: { id: string } }).data;
  const controller = new AbortController();
  const res = await fetch(`${server.apiUrl}/inboxes/${inbox.id}/stream?include=message`, { headers: { authorization: `Bearer ${OPERATOR}` }, signal: controller.signal });
  expect(res.status).toBe(200);
  const stream = readEvents(res.body!);
  try {
    await stream.until((e) => e.event === 'ready');

    // Seq 1 is stored unheard; the live event of seq 2 skips it, so the stream reads the store.
    await store.insertMessage([inbox.id], withHtml('first'), Date.now());
    const [second] = await store.insertMessage([inbox.id], withHtml('second'), Date.now());
    bus.publish({ type: 'message', inboxId: inbox.id, message: second! });
    await stream.until((e) => e.event === 'message' && e.id === '2');

    // Seq 3 is stored unheard; a resync makes the stream read the store.
    await store.insertMessage([inbox.id], withHtml('third'), Date.now());
    bus.publish({ type: 'resync', inboxId: inbox.id });
    await stream.until((e) => e.event === 'message' && e.id === '3');

    const messages = stream.events.filter((e) => e.event === 'message');
    expect(messages.map((e) => e.id)).toEqual(['1', '2', '3']);
    for (const [i, subject] of ['first', 'second', 'third'].entries()) {
      // Whole: the same object as GET /messages/{id}, with headers and the sanitized HTML.
      expect(messages[i]!.data).toMatchObject({ subject, seq: i + 1, html: `<p>${subject}</p>`, text: `body of ${subject}`, headers: { subject } });
    }
  } finally {
    controller.abort();
  }
});
