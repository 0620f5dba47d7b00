import { test as base, expect } from '@playwright/test';
import { createClient, AuthenticationError, WaitTimeoutError } from '../../../src/client/index.ts';
import type { InboxHandle, InboxkitClient } from '../../../src/client/index.ts';
import { fakeServer, inbox, json, summary } from '../client/fake-server.ts';
import type { FakeServer, Handler } from '../client/fake-server.ts';

/** A whole message as `GET /messages/{id}` answers it. */
const full = (seq: number) => ({ ...summary(seq), replyTo: [], headers: {}, text: `Body ${seq}`, html: null, attachments: [] });

const notFound = (res: Parameters<Handler>[1]) => json(res, 404, { error: { code: 'not_found', message: 'No such endpoint.' } });

const test = base.extend<{ start: (handler: Handler) => Promise<{ server: FakeServer; handle: InboxHandle }> }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as the first argument
  start: async ({}, use) => {
    const opened: Array<{ server: FakeServer; client: InboxkitClient }> = [];
    await use(async (handler) => {
      const server = await fakeServer(handler);
      const client = createClient({ baseUrl: server.url, retry: false });
      opened.push({ server, client });
      return { server, handle: client.inboxes.fromData(inbox('i1'), 'inbox-token') };
    });
    for (const { server, client } of opened) {
      await client.close();
      await server.close();
    }
  },
});

const lists = (server: FakeServer) => server.requests.filter((r) => r.url.includes('/messages?'));

test('a 429 while polling is honoured: nothing is asked again before Retry-After', async ({ start }) => {
  const { server, handle } = await start((req, res) => {
    if (req.url.includes('/stream')) return notFound(res);
    if (lists(server).length === 1) return json(res, 429, { error: { code: 'rate_limited', message: 'Slow down.' } }, { 'retry-after': '30', 'x-ratelimit-remaining': '0' });
    return json(res, 200, { data: { items: [], nextCursor: null } });
  });
  const error = await handle.waitForMessage({ subject: 'x' }, { timeout: 1500, pollIntervals: [10] }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WaitTimeoutError);
  expect(lists(server)).toHaveLength(1);
  expect((error as Error).message).toMatch(/The last poll failed: GET .* failed with 429 rate_limited/);
});

test('a credential refused while polling fails the wait at once with that error, not a timeout', async ({ start }) => {
  const { handle } = await start((req, res) => {
    if (req.url.includes('/stream')) return notFound(res);
    return json(res, 401, { error: { code: 'unauthorized', message: 'Unknown inbox token.' } });
  });
  await expect(handle.waitForMessage(undefined, { timeout: 0 })).rejects.toBeInstanceOf(AuthenticationError);
});

test('a stream answered with something other than text/event-stream is replaced by polling', async ({ start }) => {
  const { server, handle } = await start((req, res) => {
    if (req.url.includes('/stream')) return json(res, 200, { data: 'not a stream' });
    if (req.url.includes('/messages/m1')) return json(res, 200, { data: full(1) });
    return json(res, 200, { data: { items: lists(server).length > 2 ? [summary(1)] : [], nextCursor: null } });
  });
  const message = await handle.waitForMessage({ subject: 'Message 1' }, { timeout: 10_000 });
  expect(message.text).toBe('Body 1');
});

test('a message deleted between the list and its reading is skipped and named in the timeout', async ({ start }) => {
  const { server, handle } = await start((req, res) => {
    if (req.url.includes('/stream')) return notFound(res);
    if (req.url.includes('/messages/m1')) return json(res, 404, { error: { code: 'message_not_found', message: 'No such message.' } });
    return json(res, 200, { data: { items: [summary(1)], nextCursor: null } });
  });
  const error = await handle.waitForMessage({ text: 'Body' }, { timeout: 800 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WaitTimeoutError);
  expect((error as Error).message).toContain('"Message 1": it was deleted before it could be read');
  expect(server.requests.filter((r) => r.url.includes('/messages/m1'))).toHaveLength(1);
});

test('polling with a long backlog reads back page by page to what it has seen, and returns the oldest first', async ({ start }) => {
  const all = [5, 4, 3, 2, 1].map((seq) => summary(seq));
  const { handle } = await start((req, res) => {
    if (req.url.includes('/stream')) return notFound(res);
    const one = /\/messages\/m(\d+)/.exec(req.url);
    if (one) return json(res, 200, { data: full(Number(one[1])) });
    const cursor = Number(new URL(req.url, 'http://x').searchParams.get('cursor') ?? '0');
    const items = all.slice(cursor, cursor + 2);
    return json(res, 200, { data: { items, nextCursor: cursor + 2 < all.length ? String(cursor + 2) : null } });
  });
  const messages = await handle.waitForMessages(5, undefined, { timeout: 10_000 });
  expect(messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
});
