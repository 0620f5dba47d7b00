/**
 * The SSE connection under a real Node HTTP server and @hono/node-server, as
 * the service serves it: once the adapter has sent the headers, the
 * connection writes to the socket itself (src/server/streams/socket-sink.ts).
 * What must hold on that path: order with what the body carried before, a
 * response that ends cleanly (valid chunked framing, the closing event
 * last), an HTTP/1.0 client served without chunks, and the slow-client bound.
 */
import { test, expect } from '@playwright/test';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { SseConnection } from '../../../src/server/streams/connection.ts';
import type { ConnectionAccess, StreamPolicy } from '../../../src/server/streams/connection.ts';
import { createChunkFraming } from '../../../src/server/streams/socket-sink.ts';
import type { NodeOutgoing } from '../../../src/server/streams/socket-sink.ts';
import type { BusEvent } from '../../../src/server/index.ts';

const access: ConnectionAccess = { deadline: null, inboxId: 'i1', check: async () => null, concerns: () => false, now: () => 0 };

/** A policy that sends `ready`, then each message event's seq (padded to `size` bytes when asked). */
function echo(size = 0): StreamPolicy {
  return {
    async start(connection) {
      connection.write('event: ready\ndata: {}\n\n');
    },
    handle(event, connection) {
      if (event.type === 'message') connection.write(`event: message\ndata: ${String(event.message.seq).padEnd(size, '.')}\n\n`);
    },
    endData: () => ({}),
  };
}

const message = (seq: number) => ({ type: 'message', inboxId: 'i1', message: { seq } }) as unknown as BusEvent;

interface Served {
  url: string;
  /** The connection of the latest request, once its listener is subscribed. */
  next(): Promise<{ connection: SseConnection; publish: (event: BusEvent) => void; outgoing: http.ServerResponse }>;
  logged: string[];
  close(): Promise<void>;
}

/** A real HTTP server whose one route opens an SseConnection, as `openEventStream` does. */
async function serve(policy: () => StreamPolicy, maxBufferedBytes = 1 << 20): Promise<Served> {
  const logged: string[] = [];
  const logger = { info: (_o: unknown, m: string) => logged.push(m), warn() {}, error: (_o: unknown, m: string) => logged.push(m), debug() {}, child: () => logger } as never;
  const framing = createChunkFraming();
  const waiting: ((opened: Awaited<ReturnType<Served['next']>>) => void)[] = [];
  const listener = getRequestListener((_req, env) => {
    const outgoing = (env as { outgoing: http.ServerResponse }).outgoing;
    const connection = new SseConnection({ label: 'test', logger, pingIntervalMs: 60_000, maxBufferedBytes, access, outgoing: outgoing as NodeOutgoing, framing });
    connection.open((publish) => {
      waiting.shift()?.({ connection, publish, outgoing });
      return () => {};
    }, policy());
    return new Response(connection.body, { headers: { 'content-type': 'text/event-stream' } });
  });
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    logged,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('once the headers are out a bus event is on the socket before publish returns, in order with the replay, and the stream ends cleanly after its closing event', async () => {
  const served = await serve(() => echo());
  try {
    const opened = served.next();
    const body = new Promise<{ text: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      http.get(served.url, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ text, headers: res.headers }));
        res.on('error', reject);
      });
    });
    const { connection, publish, outgoing } = await opened;
    // Until the adapter has written `retry` and `ready` and waits for more, events go through the body.
    publish(message(1));
    await expect.poll(() => served.logged.length === 0 && outgoing.socket !== null && outgoing.socket.bytesWritten > 0).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const socket = outgoing.socket!;
    for (let seq = 2; seq <= 50; seq++) {
      const before = socket.bytesWritten + socket.writableLength;
      publish(message(seq));
      expect(socket.bytesWritten + socket.writableLength, `event ${seq} is handed to the socket at once`).toBeGreaterThan(before);
    }
    // A chunk's size counts bytes, not characters.
    connection.write('event: note\ndata: "Grüße ✓ 😀"\n\n');
    connection.end({ event: 'inbox.deleted' });
    const { text, headers } = await body;
    expect(headers['transfer-encoding']).toBe('chunked');
    const events = text.trim().split('\n\n');
    expect(events).toEqual([
      'retry: 2000',
      'event: ready\ndata: {}',
      ...Array.from({ length: 50 }, (_, i) => `event: message\ndata: ${i + 1}`),
      'event: note\ndata: "Grüße ✓ 😀"',
      'event: inbox.deleted\ndata: {}',
    ]);
  } finally {
    await served.close();
  }
});

test('an HTTP/1.0 client gets the events as they are, without chunk framing, and the connection closes at the end', async () => {
  const served = await serve(() => echo());
  try {
    const opened = served.next();
    const { port } = new URL(served.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.write('GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n');
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (raw += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const { connection, publish } = await opened;
    await expect.poll(() => raw.includes('event: ready')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    publish(message(1));
    publish(message(2));
    connection.end({ event: 'inbox.expired' });
    await closed;
    const [head, body] = raw.split('\r\n\r\n', 2) as [string, string];
    expect(head).not.toMatch(/transfer-encoding/i);
    expect(body).toBe('retry: 2000\n\nevent: ready\ndata: {}\n\nevent: message\ndata: 1\n\nevent: message\ndata: 2\n\nevent: inbox.expired\ndata: {}\n\n');
  } finally {
    await served.close();
  }
});

test('a client that stops reading is dropped once its socket holds more than the bound, and the log says why', async () => {
  const bound = 64 * 1024;
  const served = await serve(() => echo(32 * 1024), bound);
  try {
    const opened = served.next();
    let response: http.IncomingMessage | null = null;
    const request = http.get(served.url, (res) => {
      response = res;
      // Reads `retry` and `ready`, then nothing more.
      res.once('data', () => res.pause());
    });
    request.on('error', () => {});
    const { connection, publish, outgoing } = await opened;
    await expect.poll(() => response !== null).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    let seq = 0;
    // The kernel takes a few MB of a loopback connection first; 64 MB is far past that.
    while (!connection.closed && seq < 2048) {
      publish(message(++seq));
      if (!connection.closed) expect(outgoing.socket?.writableLength ?? 0, 'bytes the socket holds while the connection is open').toBeLessThanOrEqual(bound);
      if (seq % 32 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(connection.closed, `dropped after ${seq} events of 32 KB`).toBe(true);
    expect(served.logged).toEqual(['test: client too slow, disconnecting (the client reconnects)']);
    // The socket is cut, not left to drain what it holds.
    expect(outgoing.destroyed).toBe(true);
  } finally {
    await served.close();
  }
});
