/**
 * Starting the whole local service: storage, HTTP API, SMTP intake and the
 * expiry sweeper, released together by `close()`.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { isLoopbackHost } from '../wire/defaults.ts';
import { urlHost } from '../wire/defaults.ts';
import { API_PREFIX } from '../wire/schemas.ts';
import { createApp } from './app.ts';
import { anonymousRateLimit } from './auth/middleware.ts';
import { hashSecret, isOperatorTokenShape } from './auth/secrets.ts';
import { ConfigError, resolveConfig } from './context/config.ts';
import type { ConfigOptions, ResolvedConfig } from './context/config.ts';
import { createServerContext } from './context/context.ts';
import type { ServerContext } from './context/context.ts';
import type { EventBus } from './events/types.ts';
import { startSweeper } from './expiry.ts';
import { createRateLimiter, rateLimitHeaders } from './http/ratelimit.ts';
import type { AppMount } from './http/mount.ts';
import type { RateLimiter } from './http/ratelimit.ts';
import { prepareMessage } from './mail/prepare.ts';
import { startSmtpIntake } from './smtp/intake.ts';
import type { PostgresStore } from './storage/postgres.ts';
import { redactUrl } from './storage/postgres/url.ts';
import { createSqliteStore } from './storage/sqlite.ts';
import type { Store } from './storage/contract/types.ts';

/** Options of {@link startServer}: the configuration, plus what to inject. */
export interface StartServerOptions extends ConfigOptions {
  /**
   * Log level of the built-in pino logger (`'info'`, `'debug'` …).
   * @defaultValue `'silent'`
   */
  logLevel?: string;
  /**
   * Where the built-in logger writes its JSON lines.
   * @defaultValue `'stdout'`
   */
  logStream?: 'stdout' | 'stderr';
  /** A pino logger to use instead of the built-in one. */
  logger?: Logger;
  /**
   * The clock, in epoch milliseconds; inject one to test expiry.
   * @defaultValue `Date.now`
   */
  now?: () => number;
  /**
   * The store; the server then does not close it.
   * @defaultValue a PostgreSQL store when `db` is a postgres:// URL, else a SQLite store on `db`/`dbPath` (in memory without one)
   */
  store?: Store;
  /**
   * The event bus.
   * @defaultValue a LISTEN/NOTIFY bus on a PostgreSQL store, else an in-process bus
   */
  bus?: EventBus;
  /**
   * An operator token (`tmo_` + at least 16 letters, digits, `-` or `_`) that
   * sees every inbox, for the web viewer (`RunningServer.viewerUrl` carries
   * it). Only a service bound to loopback may have one: anyone who can reach
   * the port and knows the token reads every inbox. `inboxkit serve` makes a
   * new one at each start.
   * @defaultValue none: the viewer opens with an inbox token or an API key
   */
  operatorToken?: string;
  /**
   * Where the built web viewer's files are; `false` serves no viewer at `/`.
   * @defaultValue dist/viewer of this package
   */
  viewerAssetsDir?: string | false;
  /**
   * Extra endpoints (the CLI mounts the MCP server at `/mcp`), behind the API's own
   * middleware: Host/Origin rules, credentials, rate limit and body limit apply to them.
   * @defaultValue none
   */
  mounts?: readonly AppMount[];
}

/** A running local service. */
export interface RunningServer {
  /** Origin of the HTTP server, e.g. `http://127.0.0.1:49152`. */
  url: string;
  /** Base URL of the API, e.g. `http://127.0.0.1:49152/api/v1`. */
  apiUrl: string;
  /** Host the SMTP intake listens on. */
  smtpHost: string;
  /** Port of the SMTP intake. */
  smtpPort: number;
  /**
   * The web viewer's address: `${url}/`, with `#key=<operator token>` when the
   * server was given one (a secret: print it, never log it).
   */
  viewerUrl: string;
  /** The effective configuration. */
  config: ResolvedConfig;
  /** Deletes expired inboxes now (the sweeper also runs on its own). Resolves with their ids. */
  sweepExpired(): Promise<string[]>;
  /** Stops everything and releases ports and the database. Idempotent. */
  close(): Promise<void>;
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
function createHttpServer(fetch: (req: Request, env: unknown) => unknown, host: string, ctx: ServerContext, limiter: RateLimiter): Server {
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
  const server = createServer({ requireHostHeader: false }, (incoming, outgoing) => {
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
  return server;
}

function listen(server: Server, host: string, port: number): Promise<Server> {
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

function closeHttp(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Event streams stay open forever; end them so close() does not wait.
    server.closeAllConnections();
  });
}

/** A small HTML email with a style block, inline styles, a link, an image and a code: what the first real message exercises. */
const WARM_UP_HTML =
  '<html><head><style>.code{font:bold 24px monospace;color:#111}</style></head><body><table><tr><td style="padding:8px;display:block">' +
  '<p>Your code is <span class="code">482913</span>.</p><a href="https://app.example/confirm?t=1&amp;u=2" style="color:#06c">Confirm</a>' +
  '<img src="cid:logo@example" alt="logo" width="10"></td></tr></table></body></html>';
const WARM_UP_MESSAGE = Buffer.from(
  'From: Warm-up <warm-up@inboxkit.invalid>\r\nTo: warm-up@inboxkit.invalid\r\nSubject: warm-up\r\nMIME-Version: 1.0\r\n' +
    'Content-Type: multipart/alternative; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n' +
    'Your code is 482913.\r\n--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n' +
    `${WARM_UP_HTML}\r\n--b--\r\n`,
);

/**
 * Loads, before the service says it is ready, what the first message would
 * otherwise load on its way to the first wait: the MIME parser's charset and
 * encoding paths and the HTML sanitizer (its parser and its CSS filter). Nothing
 * is stored; a failure here is left for the first real message to report.
 */
async function warmUp(): Promise<void> {
  // The same work intake does for a small message (parse, then sanitize the HTML).
  await prepareMessage(WARM_UP_MESSAGE, { envelopeFrom: 'warm-up@inboxkit.invalid' }).catch(() => {});
}

/**
 * Makes each configured API key exist as its own premium user (the same user on
 * every start, so their inboxes in a database file stay theirs), and removes keys
 * an earlier start configured but this one does not.
 */
async function seedApiKeys(store: Store, keys: string[]): Promise<void> {
  const hashes = keys.map(hashSecret);
  await store.removeConfiguredApiKeysExcept(hashes);
  for (const keyHash of hashes) {
    if (await store.findUserByApiKeyHash(keyHash)) continue;
    const email = `key-${keyHash.slice(0, 12)}@users.inboxkit.test`;
    try {
      const user = (await store.findUserByEmail(email)) ?? (await store.createUser({ email, planId: 'premium' }));
      await store.addApiKey(user.id, keyHash, { configured: true });
    } catch (error) {
      // Another node sharing the database seeded the same key at the same moment.
      if (!(await store.findUserByApiKeyHash(keyHash))) throw error;
    }
  }
}

/** Whether a store is the PostgreSQL one (which wants the LISTEN/NOTIFY bus). */
function isPostgresStore(store: Store): store is PostgresStore {
  return (store as Partial<PostgresStore>).kind === 'postgres';
}

/**
 * Refuses an operator token of the wrong shape, or on a service reachable from
 * other machines (anyone who can reach the port and knows the token reads every inbox).
 */
function checkOperatorToken(token: string | undefined, host: string): void {
  if (token === undefined) return;
  if (!isOperatorTokenShape(token)) {
    throw new ConfigError('operatorToken', 'option operatorToken must be "tmo_" followed by at least 16 letters, digits, "-" or "_".');
  }
  if (!isLoopbackHost(host)) {
    throw new ConfigError('operatorToken', `option operatorToken needs the HTTP server bound to loopback (127.0.0.1, ::1 or localhost), not ${host}: it opens every inbox.`);
  }
}

/**
 * Starts the local Disposable Inbox service: the HTTP API under `/api/v1` and
 * the SMTP intake, on 127.0.0.1 and free ports by default.
 *
 * @throws Error naming the option or the port when the configuration is invalid or a port is taken.
 * @example
 * ```ts
 * import { startServer } from 'inboxkit/server';
 *
 * const server = await startServer({ domains: ['example.test'] });
 * console.log(server.apiUrl, server.smtpPort);
 * await server.close();
 * ```
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const config = resolveConfig(options);
  checkOperatorToken(options.operatorToken, config.http.host);
  const level = options.logLevel ?? 'silent';
  const logger = options.logger ?? (options.logStream === 'stderr' ? pino({ level }, pino.destination(2)) : pino({ level }));
  const ownStore = options.store === undefined;
  const clock = options.now ? { now: options.now } : {};
  const store =
    options.store ??
    (config.databaseUrl
      ? // The PostgreSQL driver loads only for a service on PostgreSQL.
        await (await import('./storage/postgres.ts')).createPostgresStore({ url: config.databaseUrl, ...clock, onConnectionError: (err) => logger.warn({ err }, 'database: a pooled connection failed') })
      : createSqliteStore({ path: config.dbPath, ...clock }));
  const cleanups: Array<() => Promise<void> | void> = [];
  if (ownStore) cleanups.push(() => store.close());

  const runCleanups = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        logger.error({ err }, 'closing failed');
      }
    }
  };

  // The MIME parser and the sanitizer run once while the rest starts, so that the
  // first wait does not pay for their first run (their modules load with the
  // intake's). Measured on 2 cores: warming after the ready line instead gains
  // about 15 ms of start-up, and the first wait right after start loses 5–8 ms.
  const warm = warmUp();
  try {
    let bus = options.bus;
    if (!bus && isPostgresStore(store)) {
      const { createPostgresEventBus } = await import('./events/postgres-bus.ts');
      const pgBus = await createPostgresEventBus({ store, logger: logger.child({ component: 'bus' }) });
      cleanups.push(() => pgBus.close());
      bus = pgBus;
    }
    // The stored-bytes cap is for a store in memory: a PostgreSQL store given as `store` is not one.
    if (isPostgresStore(store)) config.bounds.maxStoredBytes = null;
    await store.syncDomains(config.domains);
    await seedApiKeys(store, config.apiKeys);
    const ctx = createServerContext({
      store,
      config,
      logger,
      ...clock,
      ...(bus ? { bus } : {}),
      ...(options.operatorToken !== undefined ? { operatorToken: options.operatorToken } : {}),
    });
    // One limiter for the app and for the requests the HTTP server refuses before it.
    const rateLimiter = createRateLimiter(store, config.rateLimitWindowSeconds);
    let selfApiUrl = `http://${urlHost(config.http.host)}:${config.http.port}${API_PREFIX}`;
    const app = createApp(ctx, {
      rateLimiter,
      ...(options.viewerAssetsDir !== undefined ? { viewerAssetsDir: options.viewerAssetsDir } : {}),
      ...(options.mounts ? { mounts: options.mounts, selfApiUrl: () => selfApiUrl } : {}),
    });

    const http = await listen(createHttpServer(app.fetch, config.http.host, ctx, rateLimiter), config.http.host, config.http.port);
    cleanups.push(() => closeHttp(http));
    const smtp = await startSmtpIntake(ctx, {
      host: config.smtp.host,
      port: config.smtp.port,
      tls: config.smtp.tls,
      greetingDelayMs: config.smtp.greetingDelayMs,
      socketTimeoutMs: config.smtp.socketTimeoutMs,
      maxConnections: config.smtp.maxConnections,
      maxConnectionsPerAddress: config.bounds.smtpMaxConnectionsPerAddress,
      useProxy: config.operations.smtpProxy,
    });
    cleanups.push(() => smtp.close());
    // Runs before smtp.close(): ends the delays of delivery faults, so in-flight sessions finish.
    cleanups.push(() => ctx.faults.close());
    const sweeper = startSweeper(ctx);
    cleanups.push(() => sweeper.stop());
    await warm;

    const port = (http.address() as AddressInfo).port;
    const url = `http://${urlHost(config.http.host)}:${port}`;
    selfApiUrl = `${url}${API_PREFIX}`;
    logger.info({ url, smtpHost: config.smtp.host, smtpPort: smtp.port, db: config.databaseUrl ? redactUrl(config.databaseUrl) : (config.dbPath ?? ':memory:') }, 'inboxkit server started');

    let closing: Promise<void> | null = null;
    return {
      url,
      apiUrl: `${url}${API_PREFIX}`,
      smtpHost: config.smtp.host,
      smtpPort: smtp.port,
      viewerUrl: `${url}/${options.operatorToken === undefined ? '' : `#key=${options.operatorToken}`}`,
      config,
      sweepExpired: () => sweeper.sweep(),
      close: () => (closing ??= runCleanups()),
    };
  } catch (error) {
    await warm;
    await runCleanups();
    throw error;
  }
}
