/**
 * The Node HTTP server of the service: the app's request listener, the
 * refusals that happen before the app (moved here from `start.ts`), the
 * operator's endpoints answered before the app (`/livez`, `/readyz`,
 * `/metrics`: see `probes.ts`), and the requests in flight, so that a drain
 * can let them finish and end the event streams.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { anonymousRateLimit } from './auth/middleware.ts';
import type { ServerContext } from './context/context.ts';
import { rateLimitHeaders } from './http/ratelimit.ts';
import type { RateLimiter } from './http/ratelimit.ts';

/** Answers a request before the app does, or returns false to leave it to the app. */
export type FrontHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** What the operator's side adds to the HTTP server. */
export interface HttpHooks {
  /** Answers the operator's endpoints before the app (and, during a drain, the app's requests with 503). */
  front?: FrontHandler;
  /** Told the status of every response sent (the metrics count 429 and 503). */
  onStatus?: (status: number) => void;
}

/** The responses in progress on a server, and which of them are event streams. */
interface InFlight {
  responses: Set<ServerResponse>;
  streams: WeakSet<ServerResponse>;
  /** Answered by the front handler (probes, metrics, a draining node's 503): not work a drain waits for. */
  operator: WeakSet<ServerResponse>;
}

const inFlightOf = new WeakMap<Server, InFlight>();

/** Notes a response until it ends, and whether it turned out to be an event stream (its Content-Type, when its head is written). */
function track(inFlight: InFlight, response: ServerResponse): void {
  inFlight.responses.add(response);
  response.once('close', () => inFlight.responses.delete(response));
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  response.writeHead = ((...args: unknown[]) => {
    const headers = args.find((arg) => typeof arg === 'object' && arg !== null) as Record<string, unknown> | unknown[] | undefined;
    const entries: Array<[string, unknown]> = Array.isArray(headers) ? [] : Object.entries(headers ?? {});
    const type = entries.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? response.getHeader('content-type');
    if (String(type ?? '').startsWith('text/event-stream')) inFlight.streams.add(response);
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
}

/** The JSON error envelope as raw HTTP/1.1 bytes, for a socket no request object owns. */
function rawEnvelope(status: string, message: string, headers: Record<string, string>): string {
  const body = JSON.stringify({ error: { code: 'validation_error', message, requestId: headers['X-Request-Id'] } });
  const lines = Object.entries({ 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close', ...headers }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  return `HTTP/1.1 ${status}\r\n${lines.join('')}\r\n${body}`;
}

/** Why @hono/node-server refused a request before the app saw it, in words that say what to fix. */
function refusalMessage(error: Error): string {
  const why = error.message;
  if (/missing host/i.test(why)) return 'The request has no Host header; HTTP/1.1 requires one (e.g. Host: 127.0.0.1:8025).';
  if (/invalid host/i.test(why)) return 'The Host header is not a valid host[:port]; send the host and port the server is reached at.';
  if (/backslash/i.test(why)) return 'The request path contains a backslash; use "/" to separate path segments and percent-encode a literal backslash as %5C.';
  if (/absolute url|scheme/i.test(why)) return `The request target is not a valid http(s) absolute URL (${why}); send an origin-form path such as /api/v1/domains.`;
  return `The Host header and the request target do not make a valid URL (${why}): send Host as host[:port] and an origin-form path such as /api/v1/domains (OPTIONS * is not served).`;
}

/**
 * The HTTP server: @hono/node-server's request listener on a Node server,
 * with the two kinds of refusal that happen before the app answered as the
 * app answers everything: the JSON error envelope with `X-Request-Id` and the
 * `X-RateLimit-*` headers (the request counted as an anonymous call of its
 * client address).
 * - Node's parser (`clientError`): request line and headers over 16 KB (431),
 *   malformed HTTP, unknown methods, raw bytes that are not allowed in a path (400).
 * - The adapter (before a `Request` exists): a missing or invalid `Host`, a
 *   backslash in the path, `OPTIONS *`, a bad absolute-form target (400).
 */
export function createHttpServer(fetch: (req: Request, env: unknown) => unknown, host: string, ctx: ServerContext, limiter: RateLimiter, hooks: HttpHooks = {}): Server {
  const { front, onStatus } = hooks;
  const headersFor = async (address: string | undefined): Promise<Record<string, string>> => ({
    'X-Request-Id': randomUUID(),
    'X-Content-Type-Options': 'nosniff',
    // A limiter that cannot count (its database unreachable) must not turn a refusal into a crash.
    ...rateLimitHeaders(await anonymousRateLimit(ctx, limiter, address ?? 'unknown').catch(() => null)),
  });
  const refusal = async (message: string, address: string | undefined): Promise<Response> => {
    const headers = await headersFor(address);
    return new Response(JSON.stringify({ error: { code: 'validation_error', message, requestId: headers['X-Request-Id'] } }), {
      status: 400,
      headers: { 'Content-Type': 'application/json', ...headers },
    });
  };
  // The adapter calls errorHandler synchronously from within the listener call
  // (before its first await), so the request being handled is the one set here.
  let refusing: IncomingMessage | null = null;
  const listener = getRequestListener(fetch as never, {
    hostname: host,
    errorHandler: (error) => refusal(error instanceof Error ? refusalMessage(error) : 'The request could not be read.', refusing?.socket.remoteAddress),
  });
  // Node's own Host check would answer with an empty 400; HTTP/1.1 without Host is refused here instead.
  const inFlight: InFlight = { responses: new Set(), streams: new WeakSet(), operator: new WeakSet() };
  const server = createServer({ requireHostHeader: false }, (incoming, outgoing) => {
    track(inFlight, outgoing);
    if (onStatus) outgoing.once('finish', () => onStatus(outgoing.statusCode));
    if (front?.(incoming, outgoing)) {
      inFlight.operator.add(outgoing);
      return;
    }
    if (incoming.httpVersionMajor === 1 && incoming.httpVersionMinor >= 1 && incoming.headers.host === undefined) {
      const address = incoming.socket.remoteAddress;
      return getRequestListener(() => refusal(refusalMessage(new Error('missing host')), address), { hostname: host })(incoming, outgoing);
    }
    refusing = incoming;
    try {
      return listener(incoming, outgoing);
    } finally {
      refusing = null;
    }
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const message = tooLarge
      ? 'The request line and headers are over the 16 KB limit of the HTTP server; send long values in a JSON body instead of the URL or headers.'
      : `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}): check the method (GET, POST, PATCH, DELETE), that the path is ASCII with other bytes percent-encoded, and the header syntax.`;
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    void headersFor((socket as Socket).remoteAddress).then((headers) => {
      if (socket.writable) socket.end(rawEnvelope(status, message, headers));
      else socket.destroy();
    });
  });
  inFlightOf.set(server, inFlight);
  return server;
}

/**
 * The HTTP side of a drain, with the server still listening (the operator's
 * endpoints answer to the end, and the front handler answers new app
 * requests 503): closes idle keep-alive connections, hands event streams
 * over (`handOver`: each is told to reconnect and ends within `streamGraceMs`
 * or as soon as its client leaves; one opened meanwhile is handed over too,
 * and one still open a second after its grace is cut), and lets the app's
 * requests in flight finish until `deadline` (epoch ms). Resolves with how
 * many app requests were still in flight then (the caller cuts them by
 * closing the server).
 */
export async function finishHttp(server: Server, deadline: number, handOver: () => void, streamGraceMs = 0): Promise<number> {
  const inFlight = inFlightOf.get(server);
  server.closeIdleConnections();
  handOver();
  if (!inFlight) return 0;
  const streamsCutAt = Math.min(deadline, Date.now() + streamGraceMs + 1000);
  const open = () => [...inFlight.responses].filter((r) => !inFlight.operator.has(r));
  const requests = () => open().filter((r) => !inFlight.streams.has(r));
  while (open().length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(25, deadline - Date.now()))));
    handOver();
    if (Date.now() >= streamsCutAt) for (const response of open()) if (inFlight.streams.has(response)) response.destroy();
  }
  for (const response of open()) if (inFlight.streams.has(response)) response.destroy();
  return requests().length;
}

/** Listens on `host:port`; rejects with a message naming the port when it cannot. */
export function listen(server: Server, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? `port ${port} is already in use. Pick another HTTP port (0 chooses a free one)` : err.message;
      reject(new Error(`inboxkit: cannot listen for HTTP on ${host}:${port}: ${why}.`, { cause: err }));
    };
    server.once('error', onError);
    server.once('listening', () => {
      server.off('error', onError);
      resolve(server);
    });
    server.listen(port, host);
  });
}

/** Closes the server at once, event streams and requests in flight included. */
export function closeHttp(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Event streams stay open forever; end them so close() does not wait.
    server.closeAllConnections();
  });
}
