import { readFileSync } from 'node:fs';
import type { MessageSummaryRecord, Store } from '../../../src/server/storage/contract/types.ts';
import type { MessageSummary } from '../../../src/wire/schemas.ts';
import { expect, startMailServer, test } from './harness.ts';
import { startStreamServer } from './stream-harness.ts';
import type { StreamReader, StreamServer } from './stream-harness.ts';

const messageSeqs = (reader: StreamReader) => reader.events.filter((e) => e.event === 'message').map((e) => Number(e.id));
const hasEvent = (name: string) => (reader: StreamReader) => reader.events.some((e) => e.event === name);

let server: StreamServer;
test.beforeAll(async () => {
  server = await startStreamServer({ stream: { pingIntervalMs: 50 } });
});
test.afterAll(async () => {
  await server?.close();
});

async function sendMany(inbox: { address: string }, count: number, prefix = 'm') {
  for (let i = 1; i <= count; i++) await server.send({ from: 'app@example.com', to: inbox.address, subject: `${prefix}${i}`, text: `${i}` });
}

test('the stream starts with retry: 2000, sends no replay without Last-Event-ID, then ready and live messages', async () => {
  const inbox = await server.createInbox();
  await sendMany(inbox, 2, 'old');
  const stream = await server.open(inbox);
  expect(stream.response.status).toBe(200);
  expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  await stream.until(hasEvent('ready'));
  expect(stream.text().startsWith('retry: 2000\n')).toBe(true);
  expect(stream.retry).toBe(2000);
  const ready = stream.events.find((e) => e.event === 'ready')!;
  expect(JSON.parse(ready.data)).toEqual({ inboxId: inbox.id, lastSeq: 2 });
  expect(messageSeqs(stream)).toEqual([]);

  await server.send({ from: '"App" <app@example.com>', to: inbox.address, subject: 'live one', text: 'hello live' });
  await stream.until((r) => messageSeqs(r).length === 1);
  const event = stream.events.find((e) => e.event === 'message')!;
  expect(event.id).toBe('3');
  const summary = JSON.parse(event.data) as MessageSummary;
  expect(summary).toMatchObject({ inboxId: inbox.id, seq: 3, subject: 'live one', preview: 'hello live', from: { address: 'app@example.com', name: 'App' } });
  expect(typeof summary.receivedAt).toBe('string');
  stream.abort();
});

test('with Last-Event-ID the messages after it are replayed oldest first, then ready (header or ?lastEventId=)', async () => {
  const inbox = await server.createInbox();
  await sendMany(inbox, 4);
  const byHeader = await server.open(inbox, { lastEventId: 1 });
  await byHeader.until(hasEvent('ready'));
  expect(messageSeqs(byHeader)).toEqual([2, 3, 4]);
  expect(byHeader.events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'ready']);
  expect(JSON.parse(byHeader.events.at(-1)!.data)).toEqual({ inboxId: inbox.id, lastSeq: 4 });
  expect(byHeader.events.map((e) => (JSON.parse(e.data) as { subject?: string }).subject)).toEqual(['m2', 'm3', 'm4', undefined]);
  const byQuery = await server.open(inbox, { query: '?lastEventId=3' });
  await byQuery.until(hasEvent('ready'));
  expect(messageSeqs(byQuery)).toEqual([4]);
  const fromZero = await server.open(inbox, { lastEventId: 0 });
  await fromZero.until(hasEvent('ready'));
  expect(messageSeqs(fromZero)).toEqual([1, 2, 3, 4]);
  for (const s of [byHeader, byQuery, fromZero]) s.abort();
});

test('a Last-Event-ID beyond the inbox\'s last seq replays nothing and hides no later message', async () => {
  const inbox = await server.createInbox();
  await sendMany(inbox, 1);
  const stream = await server.open(inbox, { lastEventId: 10 });
  await stream.until(hasEvent('ready'));
  expect(JSON.parse(stream.events.at(-1)!.data)).toEqual({ inboxId: inbox.id, lastSeq: 1 });
  await sendMany(inbox, 1, 'next');
  await stream.until((r) => messageSeqs(r).length === 1);
  expect(messageSeqs(stream)).toEqual([2]);
  stream.abort();
});

test('an invalid Last-Event-ID is a 400 validation_error; another inbox\'s stream is a 404', async () => {
  const inbox = await server.createInbox();
  const other = await server.createInbox();
  const bad = await fetch(`${server.origin}/tuned/api/v1/inboxes/${inbox.id}/stream`, { headers: { 'X-Inbox-Token': inbox.token, 'Last-Event-ID': 'abc' } });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('validation_error');
  const foreign = await fetch(`${server.origin}/tuned/api/v1/inboxes/${inbox.id}/stream`, { headers: { 'X-Inbox-Token': other.token } });
  expect(foreign.status).toBe(404);
  expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('inbox_not_found');
});

test('a comment ping is sent at the configured interval', async () => {
  const inbox = await server.createInbox();
  const stream = await server.open(inbox);
  await stream.until((r) => r.comments.length >= 2);
  expect(stream.comments.slice(0, 2).map((c) => c.trim())).toEqual(['ping', 'ping']);
  expect(stream.text()).toContain('\n: ping\n\n');
  stream.abort();
});

test('deleting the inbox sends inbox.deleted and closes the stream', async () => {
  const inbox = await server.createInbox();
  const stream = await server.open(inbox);
  await stream.until(hasEvent('ready'));
  const res = await fetch(`${server.origin}/api/v1/inboxes/${inbox.id}`, { method: 'DELETE', headers: { 'X-Inbox-Token': inbox.token } });
  expect(res.status).toBe(200);
  const { error } = await stream.ended;
  expect(error).toBeNull();
  expect(stream.events.at(-1)).toMatchObject({ event: 'inbox.deleted' });
  expect(JSON.parse(stream.events.at(-1)!.data)).toEqual({ inboxId: inbox.id });
});

test('an expiry event sends inbox.expired and closes the stream', async () => {
  const inbox = await server.createInbox();
  const stream = await server.open(inbox);
  await stream.until(hasEvent('ready'));
  server.ctx.bus.publish({ type: 'inbox.expired', inboxId: inbox.id });
  expect((await stream.ended).error).toBeNull();
  expect(stream.events.at(-1)).toMatchObject({ event: 'inbox.expired' });
});

test('a subject with CR, LF and NUL stays inside one data line', async () => {
  const inbox = await server.createInbox();
  const stream = await server.open(inbox);
  await stream.until(hasEvent('ready'));
  await server.send({ envelope: { from: 'app@example.com', to: [inbox.address] }, raw: readFileSync(new URL('../../fixtures/eml/control-characters.eml', import.meta.url)) });
  await stream.until((r) => messageSeqs(r).length === 1);
  expect(stream.events.map((e) => e.event)).toEqual(['ready', 'message']);
  const lines = stream.text().split(/\r\n|\r|\n/);
  expect(lines.filter((l) => l.startsWith('event:'))).toEqual(['event: ready', 'event: message']);
  expect(lines.filter((l) => l.startsWith('data:'))).toHaveLength(2);
  expect(stream.text()).not.toContain('\0');
  const subject = (JSON.parse(stream.events[1]!.data) as MessageSummary).subject;
  expect(subject).toContain('event: injected');
  expect(subject).not.toMatch(/[\r\n\0]/);
  stream.abort();
});

test('closed connections unsubscribe from the bus', async () => {
  const inbox = await server.createInbox();
  const before = server.subscriptions();
  const streams = await Promise.all([server.open(inbox), server.open(inbox), server.open(inbox)]);
  await Promise.all(streams.map((s) => s.until(hasEvent('ready'))));
  expect(server.subscriptions()).toBe(before + 3);
  for (const s of streams) s.abort();
  await expect.poll(() => server.subscriptions()).toBe(before);
});

test('no message falls between replay and live, and none is sent twice, when mail arrives during the replay', async () => {
  let inboxId = '';
  let hook: (() => Promise<void>) | null = null;
  const raced = await startStreamServer({
    stream: { replayPageSize: 2 },
    wrapStore: (store: Store): Store => ({
      ...store,
      async listMessagesAfterSeq(id: string, afterSeq: number, limit: number): Promise<MessageSummaryRecord[]> {
        const run = id === inboxId ? hook : null;
        hook = null;
        // One message commits before this page is read (so it is both in the page and on the bus)…
        if (run) await run();
        const page = await store.listMessagesAfterSeq(id, afterSeq, limit);
        // …and one after (only on the bus, while the replay is still going).
        if (run) await run();
        return page;
      },
    }),
  });
  try {
    const inbox = await raced.createInbox();
    inboxId = inbox.id;
    for (let i = 1; i <= 5; i++) await raced.send({ from: 'app@example.com', to: inbox.address, subject: `before ${i}`, text: 'x' });
    let during = 0;
    hook = async () => {
      during++;
      await raced.send({ from: 'app@example.com', to: inbox.address, subject: `during ${during}`, text: 'x' });
    };
    const stream = await raced.open(inbox, { lastEventId: 0 });
    await stream.until(hasEvent('ready'));
    await stream.until((r) => messageSeqs(r).length >= 7);
    await raced.send({ from: 'app@example.com', to: inbox.address, subject: 'after', text: 'x' });
    await stream.until((r) => messageSeqs(r).includes(8));
    expect(during).toBe(2);
    expect(messageSeqs(stream)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const subjects = stream.events.filter((e) => e.event === 'message').map((e) => (JSON.parse(e.data) as MessageSummary).subject);
    expect(subjects).toEqual(['before 1', 'before 2', 'before 3', 'before 4', 'before 5', 'during 1', 'during 2', 'after']);
    stream.abort();
  } finally {
    await raced.close();
  }
});

test('a client that does not read is disconnected once its queue is full, while a reading client gets every event and intake goes on', async () => {
  test.setTimeout(60_000);
  const bounded = await startStreamServer({ stream: { maxBufferedBytes: 256 * 1024 } });
  try {
    const inbox = await bounded.createInbox();
    const slow = await bounded.open(inbox, { read: false });
    const fast = await bounded.open(inbox);
    await fast.until(hasEvent('ready'));
    const big = 'x'.repeat(8 * 1024);
    const total = 2000; // 16 MB: more than the socket buffers of the slow client can absorb
    for (let seq = 1; seq <= total; seq++) {
      bounded.ctx.bus.publish({
        type: 'message',
        inboxId: inbox.id,
        message: { id: `msg_fake${seq}`, inboxId: inbox.id, seq, from: null, to: [], cc: [], subject: big, preview: '', receivedAt: Date.now(), size: 0, hasAttachments: false,
          replyTo: [], headers: {}, text: null, rawHtml: null, sanitizedHtml: null, attachments: [] },
      });
      // Paced by the reading client (it shares this process): it never lags by more than 10 events.
      if (seq % 10 === 0) await fast.until((r) => messageSeqs(r).length >= seq);
    }
    await fast.until((r) => messageSeqs(r).length === total);
    await expect.poll(() => bounded.logs.some((l) => String(l['msg']).includes('client too slow'))).toBe(true);
    // The slow client finds its stream cut before the end: it would reconnect with Last-Event-ID.
    let received = '';
    let failed = false;
    try {
      for await (const chunk of slow.response.body!) received += Buffer.from(chunk as Uint8Array).toString('utf8');
    } catch {
      failed = true;
    }
    expect(failed || !received.includes(`id: ${total}\n`)).toBe(true);
    // Intake still works, and a client that reconnects gets the new mail.
    await bounded.send({ from: 'app@example.com', to: inbox.address, subject: 'still here', text: 'x' });
    fast.abort();
    const again = await bounded.open(inbox, { lastEventId: 0 });
    await again.until(hasEvent('ready'));
    expect(again.events.filter((e) => e.event === 'message').map((e) => (JSON.parse(e.data) as MessageSummary).subject)).toEqual(['still here']);
    again.abort();
  } finally {
    await bounded.close();
  }
});

test('startServer serves the stream under /api/v1 with replay and live mail', async () => {
  const real = await startMailServer();
  const controller = new AbortController();
  try {
    const inbox = await real.createInbox();
    await real.send({ from: 'app@example.com', to: inbox.address, subject: 'stored', text: 'x' });
    const res = await fetch(`${real.apiUrl}/inboxes/${inbox.id}/stream`, {
      headers: { 'X-Inbox-Token': inbox.token, 'Last-Event-ID': '0' },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const decoder = new TextDecoder();
    let text = '';
    let sent = false;
    for await (const chunk of res.body!) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      if (!sent && text.includes('event: ready')) {
        sent = true;
        await real.send({ from: 'app@example.com', to: inbox.address, subject: 'live', text: 'x' });
      }
      if (text.includes('id: 2\n')) break;
    }
    expect(text.startsWith('retry: 2000\n')).toBe(true);
    expect(text.match(/^event: .*$/gm)).toEqual(['event: message', 'event: ready', 'event: message']);
    expect(text).toContain('"subject":"stored"');
    expect(text).toContain('"subject":"live"');
  } finally {
    controller.abort();
    await real.close();
  }
});
