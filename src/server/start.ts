/**
 * Starting the whole local service: storage, HTTP API, SMTP intake and the
 * expiry sweeper, released together by `close()`.
 *
 * @packageDocumentation
 */
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { urlHost } from '../wire/defaults.ts';
import { API_PREFIX } from '../wire/schemas.ts';
import { createApp } from './app.ts';
import { resolveConfig } from './context/config.ts';
import type { ConfigOptions, ResolvedConfig } from './context/config.ts';
import { createServerContext } from './context/context.ts';
import type { ServerContext } from './context/context.ts';
import type { EventBus } from './events/types.ts';
import { startSweeper } from './expiry.ts';
import { createRateLimiter } from './http/ratelimit.ts';
import type { AppMount } from './http/mount.ts';
import { closeHttp, createHttpServer, listen } from './http-server.ts';
import { createDrain, drainingFront, viaBalancer } from './drain.ts';
import type { Drain } from './drain.ts';
import { createMetrics, databaseGauges, intakeObserver, noMetrics } from './metrics.ts';
import type { ServiceMetrics } from './metrics.ts';
import { createProbes, hostRuleOf } from './probes.ts';
import { startMailboxes } from './mailbox/index.ts';
import { startSmtpIntake } from './smtp/intake.ts';
import type { SmtpIntake } from './smtp/intake.ts';
import { makeSelfSigned } from './smtp/self-signed.ts';
import { redactUrl } from './storage/postgres/url.ts';
import type { Store, StoredCounts } from './storage/contract/types.ts';
import { apiKeyExists, checkOperatorToken, isPostgresStore, openMailParts, openStore, seedApiKeys, warmUp } from './startup.ts';

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
  /** Where IMAP listens (each inbox an account), or null when `imapPort` was not given. */
  imap: { host: string; port: number } | null;
  /** Where POP3 listens, or null when `pop3Port` was not given. */
  pop3: { host: string; port: number } | null;
  /**
   * The web viewer's address: `${url}/`, with `#key=<operator token>` when the
   * server was given one (a secret: print it, never log it).
   */
  viewerUrl: string;
  /** The effective configuration. */
  config: ResolvedConfig;
  /** Deletes expired inboxes now (the sweeper also runs on its own). Resolves with their ids. */
  sweepExpired(): Promise<string[]>;
  /**
   * Drains, then closes: readiness (`/readyz`) fails at once; after
   * `drainNoticeMs` event streams are handed over (`retry: 20` and
   * `event: handover`, ended once their clients left or 2 s later: clients
   * resume elsewhere from `Last-Event-ID`), new SMTP sessions get 421
   * and new API requests 503 while those in flight finish, and the last
   * counts are scraped; all within `drainTimeoutMs`, what is left then is
   * cut. Idempotent.
   */
  drain(): Promise<void>;
  /** Stops everything and releases ports and the database. Idempotent. */
  close(): Promise<void>;
}


/** The built-in pino logger, or the one given. */
function loggerOf(options: StartServerOptions): Logger {
  const level = options.logLevel ?? 'silent';
  return options.logger ?? (options.logStream === 'stderr' ? pino({ level }, pino.destination(2)) : pino({ level }));
}

/**
 * The configuration as this node runs it: the resolved one with what only
 * starting decides (the self-signed certificate of `--smtp-tls-self-signed`,
 * made now; no stored-bytes cap on a PostgreSQL store, which is not in
 * memory). A new object: the resolved configuration is never changed.
 */
async function runningConfig(config: ResolvedConfig, store: Store): Promise<ResolvedConfig> {
  const tls = config.operations.smtpTlsSelfSigned && !config.smtp.tls ? await makeSelfSigned([config.domains[0] ?? 'localhost', config.smtp.host, 'localhost']) : config.smtp.tls;
  const maxStoredBytes = isPostgresStore(store) ? null : config.bounds.maxStoredBytes;
  return { ...config, smtp: { ...config.smtp, tls }, bounds: { ...config.bounds, maxStoredBytes } };
}

/** The LISTEN/NOTIFY bus of a PostgreSQL store (closed with the service), or undefined for the in-process one. */
async function openBus(store: Store, logger: Logger, cleanups: Array<() => Promise<void> | void>): Promise<EventBus | undefined> {
  if (!isPostgresStore(store)) return undefined;
  const { createPostgresEventBus } = await import('./events/postgres-bus.ts');
  const bus = await createPostgresEventBus({ store, logger: logger.child({ component: 'bus' }) });
  cleanups.push(() => bus.close());
  return bus;
}

/** What {@link serve} starts. */
interface Served {
  url: string;
  smtp: SmtpIntake;
  mailboxes: Awaited<ReturnType<typeof startMailboxes>>;
  drain: Drain;
}

/**
 * Starts the listeners of a context: the HTTP app, the SMTP intake, IMAP and
 * POP3, and the drain over them; each is closed with the service, newest first.
 */
async function serve(ctx: ServerContext, options: StartServerOptions, metrics: ServiceMetrics, cleanups: Array<() => Promise<void> | void>): Promise<Served> {
  const { config } = ctx;
  // One limiter for the app and for the requests the HTTP server refuses before it.
  const rateLimiter = createRateLimiter(ctx.store, config.rateLimitWindowSeconds);
  let selfApiUrl = `http://${urlHost(config.http.host)}:${config.http.port}${API_PREFIX}`;
  const app = createApp(ctx, {
    rateLimiter,
    ...(config.operations.metrics ? { observe: metrics.http } : {}),
    ...(options.viewerAssetsDir !== undefined ? { viewerAssetsDir: options.viewerAssetsDir } : {}),
    ...(options.mounts ? { mounts: options.mounts, selfApiUrl: () => selfApiUrl } : {}),
  });
  metrics.routes(app.routes);
  let drain: Drain | null = null;
  ctx.liveStreams.observe(metrics.stream);
  const hooks = {
    front: drainingFront(createProbes({ draining: () => drain?.draining() ?? false, metrics, hostRule: hostRuleOf(config) }), () => drain, viaBalancer(config.operations.trustProxy)),
    onStatus: (status: number) => (status === 429 ? metrics.capReached('http_429') : status === 503 ? metrics.databaseError('http') : undefined),
  };
  // Closed after the SMTP intake and the HTTP server (cleanups run newest first): background deliveries settle, then the mail parts go.
  cleanups.push(() => ctx.intake.close());
  const http = await listen(createHttpServer(app.fetch, config.http.host, ctx, rateLimiter, hooks), config.http.host, config.http.port);
  cleanups.push(() => closeHttp(http));
  cleanups.push(() => ctx.snsSigning.close());
  const smtp = await startIntake(ctx, metrics);
  cleanups.push(() => smtp.close());
  // IMAP and POP3 (issue 46): after the intake, whose TLS key and certificate they share.
  const mailboxes = await startMailboxes(ctx);
  cleanups.push(() => mailboxes.close());
  const port = (http.address() as AddressInfo).port;
  ctx.ownPorts.push(port, smtp.port, ...[mailboxes.imap, mailboxes.pop3].flatMap((listener) => (listener ? [listener.port] : [])));
  ctx.listening.smtp = { host: config.smtp.host, port: smtp.port };
  ctx.listening.imap = mailboxes.imap;
  ctx.listening.pop3 = mailboxes.pop3;
  drain = createDrain({ noticeMs: config.operations.drainNoticeMs, timeoutMs: config.operations.drainTimeoutMs, http, smtp, streams: ctx.liveStreams, metrics, logger: ctx.logger });
  // Runs before smtp.close(): ends the delays of delivery faults, so in-flight sessions finish.
  cleanups.push(() => ctx.faults.close());
  const url = `http://${urlHost(config.http.host)}:${port}`;
  selfApiUrl = `${url}${API_PREFIX}`;
  return { url, smtp, mailboxes, drain };
}

/** The SMTP intake of a service, with its options from the configuration. */
async function startIntake(ctx: ServerContext, metrics: ServiceMetrics): Promise<SmtpIntake> {
  const { config, store } = ctx;
  return startSmtpIntake(ctx, {
    host: config.smtp.host,
    port: config.smtp.port,
    tls: config.smtp.tls,
    greetingDelayMs: config.smtp.greetingDelayMs,
    socketTimeoutMs: config.smtp.socketTimeoutMs,
    maxConnections: config.smtp.maxConnections,
    maxConnectionsPerAddress: config.bounds.smtpMaxConnectionsPerAddress,
    useProxy: config.operations.smtpProxy,
    observer: intakeObserver(metrics),
    auth: config.operations.smtpAuth === 'off' ? null : { required: config.operations.smtpAuth === 'required', check: (_user, password) => apiKeyExists(store, password) },
    authLimits: { maxFailuresPerConnection: config.bounds.smtpAuthMaxFailures, failureDelayMs: config.bounds.smtpAuthFailureDelayMs },
  });
}

/** Runs the cleanups newest first, each once, logging (not throwing) a failure so the rest still run. */
async function runInReverse(cleanups: Array<() => Promise<void> | void>, logger: Logger): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (err) {
      logger.error({ err }, 'closing failed');
    }
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
  const resolved = resolveConfig(options);
  checkOperatorToken(options.operatorToken, resolved.http.host);
  const logger = loggerOf(options);
  // Late-bound: the gauges read the parts started below.
  const gauges = { openStreams: () => 0, openSmtpSessions: () => 0, database: databaseGauges(null, undefined), stored: (): Promise<StoredCounts> => Promise.reject(new Error('not started')) };
  const onPostgres = Boolean(resolved.databaseUrl) || (options.store !== undefined && isPostgresStore(options.store));
  const metrics = resolved.operations.metrics
    ? await createMetrics({
        openStreams: () => gauges.openStreams(),
        openSmtpSessions: () => gauges.openSmtpSessions(),
        stored: () => gauges.stored(),
        ...(onPostgres ? { database: () => gauges.database() } : {}),
      })
    : noMetrics();
  const clock = options.now ? { now: options.now } : {};
  const cleanups: Array<() => Promise<void> | void> = [];
  const runCleanups = () => runInReverse(cleanups, logger);
  // The MIME parser and the sanitizer run once while the rest starts, so that the
  // first wait does not pay for their first run (their modules load with the
  // intake's). Measured on 2 cores: warming after the ready line instead gains
  // about 15 ms of start-up, and the first wait right after start loses 5–8 ms.
  const warm = warmUp();
  try {
    const store = options.store ?? (await openStore(resolved, clock, logger, metrics));
    if (options.store === undefined) cleanups.push(() => store.close());
    const config = await runningConfig(resolved, store);
    const bus = options.bus ?? (await openBus(store, logger, cleanups));
    await store.syncDomains(config.domains);
    await seedApiKeys(store, config.apiKeys);
    const mail = openMailParts(config, logger);
    cleanups.push(() => mail.close());
    const ctx = createServerContext({
      store,
      config,
      logger,
      mail: { prepare: mail.prepare, forwarder: mail.forwarder, observer: { stored: (channel, copies) => metrics.stored(channel, copies) } },
      ...clock,
      ...(bus ? { bus } : {}),
      ...(options.operatorToken !== undefined ? { operatorToken: options.operatorToken } : {}),
      snsCertificate: (names) => makeSelfSigned(names),
    });
    cleanups.push(() => ctx.pools.close());
    const served = await serve(ctx, options, metrics, cleanups);
    gauges.openStreams = () => ctx.streamCaps.open();
    gauges.openSmtpSessions = () => served.smtp.openSessions();
    gauges.database = databaseGauges(store, bus);
    gauges.stored = () => store.storedCounts();
    const sweeper = startSweeper(ctx, metrics);
    cleanups.push(() => sweeper.stop());
    await warm;
    logger.info({ url: served.url, smtpHost: config.smtp.host, smtpPort: served.smtp.port, db: config.databaseUrl ? redactUrl(config.databaseUrl) : (config.dbPath ?? ':memory:') }, 'inboxkit server started');
    let closing: Promise<void> | null = null;
    let drained: Promise<void> | null = null;
    return {
      url: served.url,
      apiUrl: `${served.url}${API_PREFIX}`,
      smtpHost: config.smtp.host,
      smtpPort: served.smtp.port,
      imap: served.mailboxes.imap,
      pop3: served.mailboxes.pop3,
      viewerUrl: `${served.url}/${options.operatorToken === undefined ? '' : `#key=${options.operatorToken}`}`,
      config,
      sweepExpired: () => sweeper.sweep(),
      // close() during a drain does not wait for it: it stops everything now.
      drain: () => (drained ??= served.drain.run().then(() => (closing ??= runCleanups()))),
      close: () => (closing ??= runCleanups()),
    };
  } catch (error) {
    await warm;
    await runCleanups();
    throw error;
  }
}
