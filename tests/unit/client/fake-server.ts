import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the fake server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}

/** A real HTTP server on 127.0.0.1, port 0, whose answers the test scripts. */
export interface FakeServer {
  /** Origin, e.g. http://127.0.0.1:40000 */
  url: string;
  requests: SeenRequest[];
  /** TCP connections accepted so far. */
  connections: number;
  /** Sockets still open. */
  openSockets: Set<Socket>;
  close(): Promise<void>;
}

export type Handler = (req: SeenRequest, res: ServerResponse, index: number) => unknown;

/** Starts a fake API server; `handler` gets each request (0-based index among all requests). */
export async function fakeServer(handler: Handler): Promise<FakeServer> {
  const state: FakeServer = { url: '', requests: [], connections: 0, openSockets: new Set(), close: async () => {} };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), socket: req.socket };
    const index = state.requests.push(seen) - 1;
    try {
      await handler(seen, res, index);
    } catch (err) {
      if (!res.headersSent) res.writeHead(599).end(String(err));
    }
  });
  server.on('connection', (socket) => {
    state.connections++;
    state.openSockets.add(socket);
    socket.on('close', () => state.openSockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return state;
}

/** Answers JSON with the rate-limit headers of the contract. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '99',
    'x-ratelimit-reset': '42',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

export const domain = { id: 'd1', domain: 'inboxkit.test', isDefault: true };
export const inbox = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  address: `${id}@inboxkit.test`,
  localPart: id,
  domainId: 'd1',
  domain: 'inboxkit.test',
  label: null,
  forwardTo: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: null,
  messageCount: 0,
  ...extra,
});
export const summary = (seq: number, inboxId = 'i1') => ({
  id: `m${seq}`,
  inboxId,
  seq,
  from: { address: 'app@example.test', name: 'App' },
  to: [{ address: `${inboxId}@inboxkit.test`, name: '' }],
  cc: [],
  subject: `Message ${seq}`,
  preview: `Body ${seq}`,
  receivedAt: '2026-01-01T00:00:00.000Z',
  size: 100,
  hasAttachments: false,
});
