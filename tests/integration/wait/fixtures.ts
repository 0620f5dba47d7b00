import { createServer, connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import type { ServerResponse } from 'node:http';
import { test as base } from '@playwright/test';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer, StartServerOptions } from '../../../src/server/index.ts';
import { createClient } from '../../../src/client/index.ts';
import type { ClientOptions, InboxkitClient } from '../../../src/client/index.ts';

/**
 * A TCP proxy in front of the server. It notices which of its connections carry
 * an event stream that went live (the server sent `event: ready`), can cut every
 * connection, and can hold new connections (accepted, but not passed on) until released.
 */
export interface TcpProxy {
  url: string;
  /** Connections whose answer carried `event: ready` and that are still open. */
  liveStreams(): number;
  /** Event-stream requests seen so far. */
  streamRequests(): number;
  /** Requests for the message list seen so far. */
  listRequests(): number;
  /** Destroys every open connection; returns how many. */
  cut(): number;
  /** While held, new connections wait (unanswered) until `release()`. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: URL): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket | null; stream: boolean; live: boolean }>();
  const held: Array<() => void> = [];
  let holding = false;
  let streamRequests = 0;
  let listRequests = 0;
  const server = createServer((client) => {
    const pair = { client, upstream: null as Socket | null, stream: false, live: false };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('error', drop).on('close', drop);
    client.pause();
    const pass = () => {
      if (client.destroyed) return;
      const upstream = connect(Number(target.port), target.hostname);
      pair.upstream = upstream;
      upstream.on('error', drop).on('close', drop);
      client.on('data', (chunk: Buffer) => {
        const head = chunk.toString('latin1', 0, 200);
        if (/^GET [^ ]*\/stream[ ?]/.test(head)) {
          pair.stream = true;
          streamRequests++;
        }
        if (/^GET [^ ]*\/messages\?/.test(head)) listRequests++;
      });
      upstream.on('data', (chunk: Buffer) => {
        if (pair.stream && chunk.toString('utf8').includes('event: ready')) pair.live = true;
      });
      client.pipe(upstream).pipe(client);
      client.resume();
    };
    if (holding) held.push(pass);
    else pass();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const destroyAll = () => {
    const n = pairs.size;
    for (const pair of [...pairs]) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    return n;
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    liveStreams: () => [...pairs].filter((p) => p.live && !p.client.destroyed).length,
    streamRequests: () => streamRequests,
    listRequests: () => listRequests,
    cut: destroyAll,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const pass of held.splice(0)) pass();
    },
    close: () =>
      new Promise<void>((resolve) => {
        holding = false;
        held.splice(0);
        destroyAll();
        server.close(() => resolve());
      }),
  };
}

/** How an {@link HttpProxy} answers the event stream. */
export type StreamMode = 'pass' | '404' | 'hang';

/** An HTTP proxy in front of the server that can refuse or swallow the event stream, and counts requests. */
export interface HttpProxy {
  url: string;
  /** `404`: answers the stream with a JSON 404 (a server without it); `hang`: never answers (a buffering proxy). */
  streamMode: StreamMode;
  /** Request lines seen, e.g. `GET /api/v1/inboxes/…/messages?limit=50`. */
  requests: string[];
  /** Status of each answer passed on from the server, in order. */
  statuses: number[];
  close(): Promise<void>;
}

export async function startHttpProxy(target: URL, streamMode: StreamMode): Promise<HttpProxy> {
  const hanging = new Set<ServerResponse>();
  const state: HttpProxy = { url: '', streamMode, requests: [], statuses: [], close: async () => {} };
  const server = createHttpServer((req, res) => {
    const line = `${req.method} ${req.url}`;
    state.requests.push(line);
    if (/\/stream(?:\?|$)/.test(req.url ?? '') && state.streamMode !== 'pass') {
      if (state.streamMode === '404') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'not_found', message: 'No such endpoint.' } }));
      } else {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
      }
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: Number(target.port), method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        state.statuses.push(answer.statusCode ?? 502);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return state;
}

export interface WaitFixtures {
  serverOptions: StartServerOptions;
  server: RunningServer;
  /** Makes a client of the server (closed after the test). */
  makeClient: (options?: Partial<ClientOptions>) => InboxkitClient;
  /** A client without credentials. */
  guest: InboxkitClient;
  /** Sends mail over SMTP to the server (one pooled connection per test). */
  send: (mail: SendMailOptions) => Promise<void>;
}

export const test = base.extend<WaitFixtures>({
  serverOptions: [{}, { option: true }],
  server: async ({ serverOptions }, use) => {
    const server = await startServer(serverOptions);
    await use(server);
    await server.close();
  },
  makeClient: async ({ server }, use) => {
    const clients: InboxkitClient[] = [];
    await use((options = {}) => {
      const client = createClient({ baseUrl: server.url, ...options });
      clients.push(client);
      return client;
    });
    await Promise.all(clients.map((c) => c.close()));
  },
  guest: async ({ makeClient }, use) => use(makeClient()),
  send: async ({ server }, use) => {
    const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity });
    await use(async (mail) => {
      await transport.sendMail({ from: 'Acme <no-reply@acme.example>', ...mail });
    });
    transport.close();
  },
});

export { expect } from '@playwright/test';
