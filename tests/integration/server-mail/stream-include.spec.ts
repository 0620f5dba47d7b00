/**
 * `GET /inboxes/{id}/stream?include=message` (an extension): message events
 * carry the whole message, as `GET /messages/{id}` returns it, live and in the
 * replay; a message over 1 MiB of JSON goes as its summary.
 */
import { test, expect } from '@playwright/test';
import type { Message } from '../../../src/wire/schemas.ts';
import { API_PREFIX } from '../../../src/wire/schemas.ts';
import { startStreamServer } from './stream-harness.ts';
import type { StreamReader, StreamServer } from './stream-harness.ts';

const messages = (reader: StreamReader) => reader.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data) as Partial<Message>);
const hasEvent = (name: string) => (reader: StreamReader) => reader.events.some((e) => e.event === name);

let server: StreamServer;
test.beforeAll(async () => {
  server = await startStreamServer();
});
test.afterAll(async () => {
  await server?.close();
});

async function read(inbox: { token: string }, id: string): Promise<Message> {
  const res = await fetch(`${server.origin}${API_PREFIX}/messages/${id}`, { headers: { 'X-Inbox-Token': inbox.token } });
  return ((await res.json()) as { data: Message }).data;
}

test('with include=message a live event carries the whole message, equal to GET /messages/{id}; without it, the summary', async () => {
  const inbox = await server.createInbox();
  const whole = await server.open(inbox, { query: '?include=message' });
  const plain = await server.open(inbox);
  await whole.until(hasEvent('ready'));
  await plain.until(hasEvent('ready'));
  await server.send({
    from: 'app@example.com',
    to: inbox.address,
    subject: 'whole',
    html: '<p onclick="steal()">Your code is <b>123456</b></p>',
    attachments: [{ filename: 'note.txt', content: 'attached' }],
  });
  await whole.until((r) => messages(r).length === 1);
  await plain.until((r) => messages(r).length === 1);
  const [pushed] = messages(whole);
  expect(pushed!.headers).toMatchObject({ subject: 'whole' });
  expect(pushed).toEqual(await read(inbox, pushed!.id!));
  expect(pushed!.html).toBe('<p>Your code is <b>123456</b></p>');
  expect(pushed!.attachments).toEqual([expect.objectContaining({ filename: 'note.txt', size: 8 })]);
  const [summary] = messages(plain);
  expect(summary).not.toHaveProperty('headers');
  expect(summary).toMatchObject({ id: pushed!.id, seq: 1, subject: 'whole', hasAttachments: true });
  whole.abort();
  plain.abort();
});

test('the replay after Last-Event-ID sends whole messages too, oldest first', async () => {
  const inbox = await server.createInbox();
  for (let i = 1; i <= 3; i++) await server.send({ from: 'app@example.com', to: inbox.address, subject: `m${i}`, html: `<p>${i}</p>` });
  const stream = await server.open(inbox, { lastEventId: 1, query: '?include=message' });
  await stream.until(hasEvent('ready'));
  const replayed = messages(stream);
  expect(replayed.map((m) => m.subject)).toEqual(['m2', 'm3']);
  for (const m of replayed) expect(m).toEqual(await read(inbox, m.id!));
  stream.abort();
});

test('a message whose JSON is over 1 MiB comes as its summary, live and in the replay, and the stream stays open', async () => {
  const inbox = await server.createInbox();
  const live = await server.open(inbox, { query: '?include=message' });
  await live.until(hasEvent('ready'));
  const big = `${'lorem ipsum '.repeat(100_000)}`; // 1.2 MB of text
  await server.send({ from: 'app@example.com', to: inbox.address, subject: 'big', text: big });
  // Just under the bound: still whole, and a connection with the default 1 MiB queue is not dropped for it.
  await server.send({ from: 'app@example.com', to: inbox.address, subject: 'large but whole', text: 'x'.repeat(900_000) });
  await live.until((r) => messages(r).length === 2);
  const [bigEvent, largeEvent] = messages(live);
  expect(bigEvent).not.toHaveProperty('headers');
  expect(bigEvent).toMatchObject({ subject: 'big', seq: 1 });
  expect(largeEvent!.headers).toMatchObject({ subject: 'large but whole' });
  expect(largeEvent!.text!.trim().length).toBe(900_000);
  const replay = await server.open(inbox, { lastEventId: 0, query: '?include=message' });
  await replay.until(hasEvent('ready'));
  expect(messages(replay).map((m) => 'headers' in m)).toEqual([false, true]);
  expect(server.logs.some((l) => String(l['msg']).includes('client too slow'))).toBe(false);
  live.abort();
  replay.abort();
});

test('include values the server does not know are ignored: summaries, no error', async () => {
  const inbox = await server.createInbox();
  await server.send({ from: 'app@example.com', to: inbox.address, subject: 'one', text: '1' });
  const stream = await server.open(inbox, { lastEventId: 0, query: '?include=attachments' });
  expect(stream.response.status).toBe(200);
  await stream.until(hasEvent('ready'));
  expect(messages(stream)).toEqual([expect.not.objectContaining({ headers: expect.anything() })]);
  expect(messages(stream)[0]).toMatchObject({ subject: 'one' });
  stream.abort();
});
