import { test, expect } from './fixtures.ts';
import { startTcpProxy as startProxy } from '../../support/tcp-proxy.ts';
import { AbortError, AuthenticationError, NotFoundError } from '../../../src/client/index.ts';
import type { InboxEvent, InboxStream } from '../../../src/client/index.ts';

/** Reads a stream in the background, recording each event as text. */
function record(stream: InboxStream): { seen: string[]; done: Promise<unknown> } {
  const seen: string[] = [];
  const done = (async () => {
    for await (const event of stream as AsyncIterable<InboxEvent>) {
      seen.push(event.type === 'message' ? `message ${event.message.seq} ${event.message.subject}` : event.type);
    }
  })().then(
    () => 'ended',
    (err: unknown) => err,
  );
  return { seen, done };
}

test('a live stream delivers a message as it arrives and breaking out closes it', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  const subjects: string[] = [];
  for await (const event of inbox.stream()) {
    if (event.type === 'ready') {
      expect(event).toEqual({ type: 'ready', inboxId: inbox.id, lastSeq: 0 });
      await send({ to: inbox.address, subject: 'Welcome aboard', text: 'hi' });
    }
    if (event.type === 'message') {
      subjects.push(event.message.subject);
      expect(event.id).toBe('1');
      break;
    }
  }
  expect(subjects).toEqual(['Welcome aboard']);
});

test('a stream with lastEventId replays the later messages, oldest first, before going live', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  for (const n of [1, 2, 3]) await send({ to: inbox.address, subject: `M${n}`, text: 'x' });
  const events: string[] = [];
  for await (const event of inbox.stream({ lastEventId: '1' })) {
    events.push(event.type === 'message' ? `message ${event.message.seq}` : `${event.type} ${'lastSeq' in event ? event.lastSeq : ''}`);
    if (event.type === 'ready') break;
  }
  expect(events).toEqual(['message 2', 'message 3', 'ready 3']);
});

test('after the connection is cut mid-stream, the stream reconnects and delivers the mail of the gap once, in order', async ({ server, makeClient, send }) => {
  const proxy = await startProxy(new URL(server.url));
  try {
    const client = makeClient({ baseUrl: proxy.url });
    const inbox = await client.inboxes.create();
    for (const n of [1, 2]) await send({ to: inbox.address, subject: `before ${n}`, text: 'x' });
    const stream = inbox.stream({ lastEventId: 0, reconnectDelayMs: 100 });
    const { seen, done } = record(stream);
    await expect.poll(() => seen).toEqual(['message 1 before 1', 'message 2 before 2', 'ready']);
    await send({ to: inbox.address, subject: 'live 3', text: 'x' });
    await expect.poll(() => seen.length).toBe(4);

    expect(proxy.cut()).toBeGreaterThan(0);
    for (const n of [4, 5]) await send({ to: inbox.address, subject: `gap ${n}`, text: 'x' });
    await expect.poll(() => stream.connections).toBe(2);
    await send({ to: inbox.address, subject: 'live 6', text: 'x' });
    await expect.poll(() => seen.filter((s) => s.startsWith('message')).length).toBe(6);

    await inbox.delete();
    expect(await done).toBe('ended');
    expect(seen).toEqual([
      'message 1 before 1',
      'message 2 before 2',
      'ready',
      'message 3 live 3',
      'message 4 gap 4',
      'message 5 gap 5',
      'ready',
      'message 6 live 6',
      'inbox.deleted',
    ]);
    expect(stream.lastEventId).toBe('6');
  } finally {
    await proxy.close();
  }
});

test('a stream opened without lastEventId does not lose mail that arrives while it reconnects', async ({ server, makeClient, send }) => {
  const proxy = await startProxy(new URL(server.url));
  try {
    const client = makeClient({ baseUrl: proxy.url });
    const inbox = await client.inboxes.create();
    await send({ to: inbox.address, subject: 'old', text: 'x' });
    const stream = inbox.stream({ reconnectDelayMs: 100 });
    const { seen, done } = record(stream);
    await expect.poll(() => seen).toEqual(['ready']);
    proxy.cut();
    await send({ to: inbox.address, subject: 'during the gap', text: 'x' });
    await expect.poll(() => seen).toEqual(['ready', 'message 2 during the gap', 'ready']);
    stream.close();
    expect(await done).toBe('ended');
  } finally {
    await proxy.close();
  }
});

test('deleting the inbox ends the stream with inbox.deleted', async ({ guest }) => {
  const inbox = await guest.inboxes.create();
  const stream = inbox.stream();
  const { seen, done } = record(stream);
  await expect.poll(() => seen).toEqual(['ready']);
  await inbox.delete();
  expect(await done).toBe('ended');
  expect(seen).toEqual(['ready', 'inbox.deleted']);
});

test('aborting the signal ends a waiting stream with an AbortError', async ({ guest }) => {
  const inbox = await guest.inboxes.create();
  const controller = new AbortController();
  const { seen, done } = record(inbox.stream({ signal: controller.signal }));
  await expect.poll(() => seen).toEqual(['ready']);
  controller.abort();
  expect(await done).toBeInstanceOf(AbortError);
});

test('a stream of an unknown inbox or with a bad token fails at once', async ({ guest, makeClient }) => {
  const inbox = await guest.inboxes.create();
  const { done } = record(guest.inboxes.stream('ibx_does_not_exist', { inboxToken: inbox.token! }));
  expect(await done).toBeInstanceOf(NotFoundError);
  const forged = makeClient({ inboxToken: 'tmi_forged_token' });
  expect(await record(forged.inboxes.stream(inbox.id)).done).toBeInstanceOf(AuthenticationError);
});
