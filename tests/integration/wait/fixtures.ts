import type { AddressInfo } from 'node:net';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import { test as clientTest } from '../client/fixtures.ts';

/** How an {@link HttpProxy} answers the event stream. */
export type StreamMode = 'pass' | '404' | 'hang';

/** An HTTP proxy in front of the server that can refuse or swallow the event stream, and counts requests. */
export interface HttpProxy {
  url: string;
  /** `404`: answers the stream with a JSON 404 (a server without it); `hang`: never answers (a buffering proxy). */
  streamMode: StreamMode;
  /** Drops `include=` from the stream's query, as a server that does not know the extension ignores it (it sends summaries). */
  ignoreInclude: boolean;
  /**
   * Requests whose line matches are held (not forwarded) until a request to
   * `/__release` arrives (from anyone: a child test runner can send it).
   */
  hold: RegExp | null;
  /** Request lines seen, e.g. `GET /api/v1/inboxes/…/messages?limit=50`. */
  requests: string[];
  /** Status of each answer passed on from the server, in order. */
  statuses: number[];
  close(): Promise<void>;
}

export async function startHttpProxy(target: URL, streamMode: StreamMode): Promise<HttpProxy> {
  const hanging = new Set<ServerResponse>();
  const state: HttpProxy = { url: '', streamMode, ignoreInclude: false, hold: null, requests: [], statuses: [], close: async () => {} };
  let released = false;
  const held: Array<() => void> = [];
  const server = createHttpServer((req, res) => {
    const line = `${req.method} ${req.url}`;
    state.requests.push(line);
    if (req.url === '/__release') {
      released = true;
      for (const forward of held.splice(0)) forward();
      res.end('released');
      return;
    }
    if (!released && state.hold?.test(line)) {
      held.push(() => forward(req, res));
      return;
    }
    forward(req, res);
  });
  const forward = (req: IncomingMessage, res: ServerResponse) => {
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
    const path = state.ignoreInclude ? (req.url ?? '').replace(/([?&])include=[^&]*&?/, '$1').replace(/[?&]$/, '') : req.url;
    const upstream = httpRequest(
      { host: target.hostname, port: Number(target.port), method: req.method, path, headers: req.headers },
      (answer) => {
        state.statuses.push(answer.statusCode ?? 502);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
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

/**
 * The client tests' fixtures (a server on port 0, clients closed after each
 * test, an SMTP sender), with mail from Acme's no-reply address by default.
 */
export const test = clientTest.extend({
  send: async ({ server }, use) => {
    const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity });
    await use(async (mail: SendMailOptions) => {
      await transport.sendMail({ from: 'Acme <no-reply@acme.example>', ...mail });
    });
    transport.close();
  },
});

export { expect } from '@playwright/test';
export { startTcpProxy } from '../../support/tcp-proxy.ts';
export type { TcpProxy } from '../../support/tcp-proxy.ts';
