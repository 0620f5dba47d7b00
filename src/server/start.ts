/**
 * Starting the whole local service: storage, HTTP API, SMTP intake and the
 * expiry sweeper, released together by `close()`.
 *
 * @packageDocumentation
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { API_PREFIX } from '../wire/schemas.ts';
import { createApp } from './app.ts';
import { hashSecret } from './auth/secrets.ts';
import { resolveConfig } from './context/config.ts';
import type { ConfigOptions, ResolvedConfig } from './context/config.ts';
import { createServerContext } from './context/context.ts';
import type { EventBus } from './events/types.ts';
import { startSweeper } from './expiry.ts';
import { startSmtpIntake } from './smtp/intake.ts';
import { createSqliteStore } from './storage/sqlite.ts';
import type { Store } from './storage/types.ts';

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
   * @defaultValue a SQLite store on `dbPath` (in memory without one)
   */
  store?: Store;
  /**
   * The event bus.
   * @defaultValue an in-process bus
   */
  bus?: EventBus;
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
  /** The effective configuration. */
  config: ResolvedConfig;
  /** Deletes expired inboxes now (the sweeper also runs on its own). Resolves with their ids. */
  sweepExpired(): Promise<string[]>;
  /** Stops everything and releases ports and the database. Idempotent. */
  close(): Promise<void>;
}

/** A host as it appears in a URL: wildcards become loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Answers requests Node's HTTP parser refuses before the app sees them (a
 * request line and headers over 16 KB, malformed HTTP) with the JSON error
 * envelope instead of a bare status line.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const message = tooLarge
    ? 'The request line and headers are over the 16 KB limit of the HTTP server; send long values in a JSON body instead of the URL or headers.'
    : `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).`;
  const body = JSON.stringify({ error: { code: 'validation_error', message } });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function listen(fetch: (req: Request, env: unknown) => unknown, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: fetch as never, hostname: host, port }) as Server;
    server.on('clientError', answerClientError);
    const onError = (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? `port ${port} is already in use (pass another port, or 0 for a free one)` : err.message;
      reject(new Error(`inboxkit: cannot listen for HTTP on ${host}:${port}: ${why}.`, { cause: err }));
    };
    server.once('error', onError);
    server.once('listening', () => {
      server.off('error', onError);
      resolve(server);
    });
  });
}

function closeHttp(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Event streams stay open forever; end them so close() does not wait.
    server.closeAllConnections();
  });
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
    const user = (await store.findUserByEmail(email)) ?? (await store.createUser({ email, planId: 'premium' }));
    await store.addApiKey(user.id, keyHash, { configured: true });
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
  const level = options.logLevel ?? 'silent';
  const logger = options.logger ?? (options.logStream === 'stderr' ? pino({ level }, pino.destination(2)) : pino({ level }));
  const ownStore = options.store === undefined;
  const store = options.store ?? createSqliteStore({ path: config.dbPath, ...(options.now ? { now: options.now } : {}) });
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

  try {
    await store.syncDomains(config.domains);
    await seedApiKeys(store, config.apiKeys);
    const ctx = createServerContext({ store, config, logger, ...(options.now ? { now: options.now } : {}), ...(options.bus ? { bus: options.bus } : {}) });
    const app = createApp(ctx);

    const http = await listen(app.fetch, config.http.host, config.http.port);
    cleanups.push(() => closeHttp(http));
    const smtp = await startSmtpIntake(ctx, {
      host: config.smtp.host,
      port: config.smtp.port,
      tls: config.smtp.tls,
      greetingDelayMs: config.smtp.greetingDelayMs,
      socketTimeoutMs: config.smtp.socketTimeoutMs,
      maxConnections: config.smtp.maxConnections,
    });
    cleanups.push(() => smtp.close());
    // Runs before smtp.close(): ends the delays of delivery faults, so in-flight sessions finish.
    cleanups.push(() => ctx.faults.close());
    const sweeper = startSweeper(ctx);
    cleanups.push(() => sweeper.stop());

    const port = (http.address() as AddressInfo).port;
    const url = `http://${urlHost(config.http.host)}:${port}`;
    logger.info({ url, smtpHost: config.smtp.host, smtpPort: smtp.port, db: config.dbPath ?? ':memory:' }, 'inboxkit server started');

    let closing: Promise<void> | null = null;
    return {
      url,
      apiUrl: `${url}${API_PREFIX}`,
      smtpHost: config.smtp.host,
      smtpPort: smtp.port,
      config,
      sweepExpired: () => sweeper.sweep(),
      close: () => (closing ??= runCleanups()),
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}
