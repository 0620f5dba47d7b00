import { test, expect } from '@playwright/test';
import type { ServerResponse } from 'node:http';
import { createClient, AbortError, AuthenticationError, ConnectionError, NotFoundError, ResponseValidationError } from '../../../src/client/index.ts';
import type { InboxEvent, InboxkitClient, StreamLifecycleEvent } from '../../../src/client/index.ts';
import { fakeServer, json, summary } from './fake-server.ts';
import type { FakeServer, Handler } from './fake-server.ts';

const cleanups: Array<() => Promise<void>> = [];
test.afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(handler: Handler): Promise<{ server: FakeServer; client: InboxkitClient }> {
  const server = await fakeServer(handler);
  const client = createClient({ baseUrl: server.url, retry: false });
  cleanups.push(() => server.close(), () => client.close());
  return { server, client };
}

function sse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-ratelimit-remaining': '7' });
}
const message = (seq: number) => `event: message\nid: ${seq}\ndata: ${JSON.stringify(summary(seq))}\n\n`;
const ready = (lastSeq: number) => `event: ready\ndata: ${JSON.stringify({ inboxId: 'i1', lastSeq })}\n\n`;
const deleted = 'event: inbox.deleted\ndata: {"inboxId":"i1"}\n\n';

async function collect(stream: AsyncIterable<InboxEvent>): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of stream) seen.push(event.type === 'message' ? `message ${event.message.seq}` : event.type);
  return seen;
}

test('a stream dropped mid-event reconnects after the retry interval with Last-Event-ID and delivers every message once', async () => {
  const { server, client } = await setup((req, res, i) => {
    sse(res);
    if (i === 0) {
      res.write('retry: 200\n\n: ping\n\n');
      res.write(message(1) + message(2) + 'event: brand.new\ndata: {}\n\n' + message(3));
      res.write(message(4).slice(0, 30)); // half an event, then the connection breaks
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    // A careless server replays one event too many (3); the client must not repeat it.
    res.end(message(3) + message(4) + message(5) + ready(5) + ': ping\n\n' + message(6) + deleted);
  });
  const lifecycle: StreamLifecycleEvent[] = [];
  const stream = client.inboxes.stream('i1', { onLifecycle: (event) => lifecycle.push(event) });
  const seen = await collect(stream);
  expect(seen).toEqual(['message 1', 'message 2', 'message 3', 'message 4', 'message 5', 'ready', 'message 6', 'inbox.deleted']);
  expect(lifecycle).toEqual([
    { type: 'connected', connection: 1 },
    { type: 'dropped', connection: 1, reconnectInMs: 200 },
    { type: 'connected', connection: 2 },
    { type: 'ready', connection: 2, lastSeq: 5 },
  ]);
  expect(server.requests).toHaveLength(2);
  expect(server.requests[0]!.headers['last-event-id']).toBeUndefined();
  expect(server.requests[1]!.headers['last-event-id']).toBe('3');
  expect(server.requests[1]!.headers.accept).toBe('text/event-stream');
  expect(stream.lastEventId).toBe('6');
  expect(stream.connections).toBe(2);
  expect(stream.rateLimit?.remaining).toBe(7);
});

test('the reconnection waits the retry interval the server asked for', async () => {
  const { client } = await setup((req, res, i) => {
    sse(res);
    if (i === 0) {
      res.write('retry: 400\n\n' + message(1));
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    res.end(deleted);
  });
  // The stream reports the delay it chose; how long that takes on the clock is the bench's business.
  const drops: number[] = [];
  const stream = client.inboxes.stream('i1', { onLifecycle: (event) => event.type === 'dropped' && drops.push(event.reconnectInMs) });
  expect(await collect(stream)).toEqual(['message 1', 'inbox.deleted']);
  expect(drops).toEqual([400]);
});

test('a stream that cannot reconnect reports itself unavailable before the loop throws', async () => {
  const { client } = await setup((req, res, i) => {
    if (i === 0) {
      sse(res);
      res.write(ready(0));
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    json(res, 401, { error: { code: 'unauthorized', message: 'Token revoked.' } });
  });
  const lifecycle: string[] = [];
  const stream = client.inboxes.stream('i1', { reconnectDelayMs: 10, onLifecycle: (event) => lifecycle.push(event.type) });
  await expect(collect(stream)).rejects.toBeInstanceOf(AuthenticationError);
  expect(lifecycle).toEqual(['connected', 'ready', 'dropped', 'unavailable']);
});

test('a stream opened without lastEventId resumes after the ready event\'s lastSeq when it drops', async () => {
  const { server, client } = await setup((req, res, i) => {
    sse(res);
    if (i === 0) {
      res.write('retry: 10\n\n' + ready(7));
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    res.end(message(8) + ready(8) + deleted);
  });
  expect(await collect(client.inboxes.stream('i1'))).toEqual(['ready', 'message 8', 'ready', 'inbox.deleted']);
  expect(server.requests[1]!.headers['last-event-id']).toBe('7');
});

test('a lastEventId given to stream() is sent on the first connection and older messages are skipped', async () => {
  const { server, client } = await setup((_req, res) => {
    sse(res);
    res.end(message(4) + message(5) + ready(5) + deleted);
  });
  expect(await collect(client.inboxes.stream('i1', { lastEventId: 4 }))).toEqual(['message 5', 'ready', 'inbox.deleted']);
  expect(server.requests[0]!.headers['last-event-id']).toBe('4');
});

test('breaking out of the loop closes the connection', async () => {
  const { server, client } = await setup((_req, res) => {
    sse(res);
    res.write(ready(0));
    cleanups.push(async () => void res.destroy());
  });
  for await (const event of client.inboxes.stream('i1')) {
    expect(event.type).toBe('ready');
    break;
  }
  await expect.poll(() => server.openSockets.size).toBe(0);
});

test('aborting the signal ends the loop with an AbortError and closes the connection', async () => {
  const { server, client } = await setup((_req, res) => {
    sse(res);
    res.write(ready(0));
    cleanups.push(async () => void res.destroy());
  });
  const controller = new AbortController();
  const seen: string[] = [];
  const err = await (async () => {
    for await (const event of client.inboxes.stream('i1', { signal: controller.signal })) {
      seen.push(event.type);
      controller.abort();
    }
  })().catch((e: unknown) => e);
  expect(seen).toEqual(['ready']);
  expect(err).toBeInstanceOf(AbortError);
  await expect.poll(() => server.openSockets.size).toBe(0);
});

test('close() ends a waiting loop without an error', async () => {
  const { server, client } = await setup((_req, res) => {
    sse(res);
    res.write(ready(0));
    cleanups.push(async () => void res.destroy());
  });
  const stream = client.inboxes.stream('i1');
  const done = collect(stream);
  await expect.poll(() => stream.connections).toBe(1);
  stream.close();
  expect(await done).toEqual(['ready']);
  await expect.poll(() => server.openSockets.size).toBe(0);
});

test('a 404 or 401 on connect is thrown at once, not retried', async () => {
  const { server, client } = await setup((req, res) =>
    req.url.includes('/gone/')
      ? json(res, 404, { error: { code: 'inbox_not_found', message: 'no such inbox' } })
      : json(res, 401, { error: { code: 'unauthorized', message: 'bad token' } }),
  );
  await expect(collect(client.inboxes.stream('gone'))).rejects.toBeInstanceOf(NotFoundError);
  await expect(collect(client.inboxes.stream('i1'))).rejects.toBeInstanceOf(AuthenticationError);
  expect(server.requests).toHaveLength(2);
});

test('a 503 on connect is retried until the stream opens', async () => {
  const { server, client } = await setup((_req, res, i) => {
    if (i < 2) return json(res, 503, { error: { code: 'internal_error', message: 'starting' } });
    sse(res);
    res.end(message(1) + deleted);
  });
  expect(await collect(client.inboxes.stream('i1', { reconnectDelayMs: 10 }))).toEqual(['message 1', 'inbox.deleted']);
  expect(server.requests).toHaveLength(3);
});

test('a stream that cannot connect gives up after maxReconnectAttempts with the last error', async () => {
  const { server, client } = await setup((req) => req.socket.destroy());
  await expect(collect(client.inboxes.stream('i1', { reconnectDelayMs: 5, maxReconnectAttempts: 2 }))).rejects.toBeInstanceOf(ConnectionError);
  expect(server.requests).toHaveLength(3);
});

test('a connection that falls silent is reopened after the idle timeout', async () => {
  const { server, client } = await setup((_req, res, i) => {
    sse(res);
    if (i === 0) {
      res.write(message(1)); // then nothing, not even a ping
      cleanups.push(async () => void res.destroy());
      return;
    }
    res.end(message(2) + deleted);
  });
  expect(await collect(client.inboxes.stream('i1', { idleTimeoutMs: 150, reconnectDelayMs: 5 }))).toEqual(['message 1', 'message 2', 'inbox.deleted']);
  expect(server.requests[1]!.headers['last-event-id']).toBe('1');
});

test('an answer that is not an event stream, or an event that is not JSON, is a ResponseValidationError', async () => {
  const { client } = await setup((req, res) => {
    if (req.url.includes('/html/')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html></html>');
    }
    sse(res);
    res.end('event: message\nid: 1\ndata: {not json\n\n');
  });
  await expect(collect(client.inboxes.stream('html'))).rejects.toThrow(/instead of text\/event-stream/);
  const err = await collect(client.inboxes.stream('i1')).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ResponseValidationError);
  expect((err as Error).message).toContain('{not json');
});

test('a stream can be iterated only once', async () => {
  const { client } = await setup((_req, res) => {
    sse(res);
    res.end(deleted);
  });
  const stream = client.inboxes.stream('i1');
  await collect(stream);
  expect(() => stream[Symbol.asyncIterator]()).toThrow(/already being iterated/);
});

// A draining server hands a stream over (`event: handover`): the client opens its next connection at
// once, reads it up to its `ready` while the first still delivers, and only then leaves the first.
const handover = 'retry: 20\n\nevent: handover\ndata: {}\n\n';

/** The first connection of a hand-over: live at seq 0, message 1, then `handover`; it ends once `until` resolves. */
async function handedOver(res: ServerResponse, until: Promise<void>): Promise<void> {
  res.write('retry: 2000\n\n' + ready(0) + message(1) + handover);
  await until;
  res.end();
}

/** A lifecycle event in a few words: `handover 1`, `dropped 1, again in 0 ms`. */
function told(event: StreamLifecycleEvent): string {
  if (event.type === 'unavailable') return 'unavailable';
  if (event.type === 'dropped') return `dropped ${event.connection}, again in ${event.reconnectInMs} ms`;
  return `${event.type} ${event.connection}${event.type === 'ready' ? ` at ${event.lastSeq}` : ''}`;
}

/** A promise with its resolver, to order what the fake server does after what the client did. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

test('a handed-over stream opens its next connection at once, keeps the first until the next is live, and delivers every message once, in order, without a drop', async () => {
  const firstClosed = signal();
  let first: ServerResponse | undefined;
  const { server, client } = await setup(async (req, res, i) => {
    sse(res);
    res.flushHeaders();
    if (i === 0) {
      first = res;
      res.on('close', firstClosed.fire);
      // The first connection is handed over and stays open: the client must leave it itself.
      res.write('retry: 2000\n\n' + ready(0) + message(1) + message(2) + handover);
      return;
    }
    // While the next connection opens, the first still delivers message 3, which the next replays too.
    first!.write(message(3));
    res.write('retry: 2000\n\n' + message(3) + ready(3) + message(4));
    await firstClosed.promise;
    res.end(deleted);
  });
  const lifecycle: StreamLifecycleEvent[] = [];
  const stream = client.inboxes.stream('i1', { onLifecycle: (event) => lifecycle.push(event) });
  expect(await collect(stream)).toEqual(['ready', 'message 1', 'message 2', 'message 3', 'ready', 'message 4', 'inbox.deleted']);
  expect(lifecycle.map(told)).toEqual(['connected 1', 'ready 1 at 0', 'handover 1', 'connected 2', 'ready 2 at 3']);
  expect(server.requests).toHaveLength(2);
  expect(server.requests[1]!.headers['last-event-id']).toBe('2');
  expect(stream.connections).toBe(2);
});

test('when the handed-over connection ends before the next is live, the stream says it dropped and goes on with the next at once', async () => {
  const secondConnected = signal();
  const firstDropped = signal();
  const { server, client } = await setup(async (req, res, i) => {
    sse(res);
    res.flushHeaders();
    if (i === 0) return handedOver(res, secondConnected.promise);
    await firstDropped.promise;
    res.end(ready(1) + message(2) + deleted);
  });
  const lifecycle: StreamLifecycleEvent[] = [];
  const stream = client.inboxes.stream('i1', {
    onLifecycle: (event) => {
      lifecycle.push(event);
      if (event.type === 'connected' && event.connection === 2) secondConnected.fire();
      if (event.type === 'dropped') firstDropped.fire();
    },
  });
  expect(await collect(stream)).toEqual(['ready', 'message 1', 'ready', 'message 2', 'inbox.deleted']);
  // The next connection is already open: no retry wait, not even the 20 ms the hand-over asked for.
  expect(lifecycle.map(told)).toEqual(['connected 1', 'ready 1 at 0', 'handover 1', 'connected 2', 'dropped 1, again in 0 ms', 'ready 2 at 1']);
  expect(server.requests).toHaveLength(2);
  expect(server.requests[1]!.headers['last-event-id']).toBe('1');
});

test('a next connection that fails is left until the handed-over one ends; the stream then reconnects after the retry it was told', async () => {
  const { server, client } = await setup(async (req, res, i) => {
    if (i === 1) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"error":{"code":"service_unavailable","message":"draining"}}');
      return;
    }
    sse(res);
    res.flushHeaders();
    if (i === 0) {
      res.write('retry: 2000\n\n' + ready(0) + message(1) + handover);
      // The first still delivers after its next connection failed, then ends.
      setTimeout(() => res.end(message(2)), 50);
      return;
    }
    res.end(ready(2) + message(3) + deleted);
  });
  const lifecycle: StreamLifecycleEvent[] = [];
  const stream = client.inboxes.stream('i1', { onLifecycle: (event) => lifecycle.push(event) });
  expect(await collect(stream)).toEqual(['ready', 'message 1', 'message 2', 'ready', 'message 3', 'inbox.deleted']);
  expect(lifecycle.map(told)).toEqual(['connected 1', 'ready 1 at 0', 'handover 1', 'dropped 1, again in 0 ms', 'connected 2', 'ready 2 at 2']);
  expect(server.requests.map((r) => r.headers['last-event-id'])).toEqual([undefined, '1', '2']);
});

test('a next connection that never gets live is given up after readyTimeoutMs, and the stream reconnects', async () => {
  const secondConnected = signal();
  const { server, client } = await setup(async (req, res, i) => {
    sse(res);
    res.flushHeaders();
    if (i === 0) return handedOver(res, secondConnected.promise);
    // The second connection sends its headers and nothing more (a proxy that buffers it, say).
    if (i === 2) res.end(ready(1) + message(2) + deleted);
  });
  const lifecycle: StreamLifecycleEvent[] = [];
  const stream = client.inboxes.stream('i1', {
    readyTimeoutMs: 300,
    onLifecycle: (event) => {
      lifecycle.push(event);
      if (event.type === 'connected' && event.connection === 2) secondConnected.fire();
    },
  });
  expect(await collect(stream)).toEqual(['ready', 'message 1', 'ready', 'message 2', 'inbox.deleted']);
  expect(lifecycle.map(told)).toEqual(['connected 1', 'ready 1 at 0', 'handover 1', 'connected 2', 'dropped 1, again in 0 ms', 'connected 3', 'ready 3 at 1']);
  expect(server.requests.map((r) => r.headers['last-event-id'])).toEqual([undefined, '1', '1']);
});
