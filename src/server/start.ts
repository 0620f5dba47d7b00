/**
 * Starting the whole local service: storage, HTTP API, SMTP intake and the
 * expiry sweeper, released together by `close()`.
 *
 * @packageDocumentation
 */
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { isLoopbackHost } from '../wire/defaults.ts';
import { urlHost } from '../wire/defaults.ts';
import { API_PREFIX } from '../wire/schemas.ts';
import { createApp } from './app.ts';
import { hashSecret, isOperatorTokenShape } from './auth/secrets.ts';
import { ConfigError, resolveConfig } from './context/config.ts';
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
import { prepareMessage } from './mail/prepare.ts';
import { startSmtpIntake } from './smtp/intake.ts';
import type { SmtpIntake } from './smtp/intake.ts';
import { makeSelfSigned } from './smtp/self-signed.ts';
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
  /**
   * Drains, then closes: readiness (`/readyz`) fails at once; after
   * `drainNoticeMs` event streams are handed over (`retry: 20`, then ended:
   * clients resume elsewhere from `Last-Event-ID`), new SMTP sessions get 421
   * and new API requests 503 while those in flight finish, and the last
   * counts are scraped; all within `drainTimeoutMs`, what is left then is
   * cut. Idempotent.
   */
  drain(): Promise<void>;
  /** Stops everything and releases ports and the database. Idempotent. */
  close(): Promise<void>;
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

/** Whether `key` is an API key of the store (SMTP AUTH's password); a key of the wrong shape is not looked up. */
async function apiKeyExists(store: Store, key: string): Promise<boolean> {
  return /^tm_[A-Za-z0-9_-]{16,}$/.test(key) && (await store.findUserByApiKeyHash(hashSecret(key))) !== null;
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

/** The SMTP intake of a service, with its options from the configuration (a self-signed certificate made first when asked). */
async function startIntake(ctx: ServerContext, metrics: ServiceMetrics): Promise<SmtpIntake> {
  const { config, store } = ctx;
  if (config.operations.smtpTlsSelfSigned && !config.smtp.tls) config.smtp.tls = await makeSelfSigned([config.domains[0] ?? 'localhost', config.smtp.host, 'localhost']);
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
  });
}

/** The store of a service started without one: PostgreSQL for a database URL (its driver loaded only then), else SQLite. */
async function openStore(config: ResolvedConfig, clock: { now?: () => number }, logger: Logger, metrics: ServiceMetrics): Promise<Store> {
  if (!config.databaseUrl) return createSqliteStore({ path: config.dbPath, ...clock });
  const { createPostgresStore } = await import('./storage/postgres.ts');
  return createPostgresStore({
    url: config.databaseUrl,
    ...clock,
    onConnectionError: (err) => {
      metrics.databaseError('pool');
      logger.warn({ err }, 'database: a pooled connection failed');
    },
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
  const config = resolveConfig(options);
  checkOperatorToken(options.operatorToken, config.http.host);
  const level = options.logLevel ?? 'silent';
  const logger = options.logger ?? (options.logStream === 'stderr' ? pino({ level }, pino.destination(2)) : pino({ level }));
  const ownStore = options.store === undefined;
  // Late-bound: the gauges read the parts started below.
  const gauges = { openStreams: () => 0, openSmtpSessions: () => 0, database: databaseGauges(null, undefined) };
  const onPostgres = Boolean(config.databaseUrl) || (options.store !== undefined && isPostgresStore(options.store));
  const metrics = config.operations.metrics
    ? await createMetrics({ openStreams: () => gauges.openStreams(), openSmtpSessions: () => gauges.openSmtpSessions(), ...(onPostgres ? { database: () => gauges.database() } : {}) })
    : noMetrics();
  const clock = options.now ? { now: options.now } : {};
  const store = options.store ?? (await openStore(config, clock, logger, metrics));
  const cleanups: Array<() => Promise<void> | void> = [];
  if (ownStore) cleanups.push(() => store.close());
  const runCleanups = () => runInReverse(cleanups, logger);

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
      ...(config.operations.metrics ? { observe: metrics.http } : {}),
      ...(options.viewerAssetsDir !== undefined ? { viewerAssetsDir: options.viewerAssetsDir } : {}),
      ...(options.mounts ? { mounts: options.mounts, selfApiUrl: () => selfApiUrl } : {}),
    });

    let drain: Drain | null = null;
    ctx.liveStreams.observe(metrics.stream);
    const hooks = {
      front: drainingFront(createProbes({ draining: () => drain?.draining() ?? false, metrics, hostRule: hostRuleOf(config) }), () => drain, viaBalancer(config.operations.trustProxy)),
      onStatus: (status: number) => (status === 429 ? metrics.capReached('http_429') : status === 503 ? metrics.databaseError('http') : undefined),
    };
    const http = await listen(createHttpServer(app.fetch, config.http.host, ctx, rateLimiter, hooks), config.http.host, config.http.port);
    cleanups.push(() => closeHttp(http));
    const smtp = await startIntake(ctx, metrics);
    cleanups.push(() => smtp.close());
    gauges.openStreams = () => ctx.streamCaps.open();
    gauges.openSmtpSessions = () => smtp.openSessions();
    drain = createDrain({ noticeMs: config.operations.drainNoticeMs, timeoutMs: config.operations.drainTimeoutMs, http, smtp, streams: ctx.liveStreams, metrics, logger });
    // Runs before smtp.close(): ends the delays of delivery faults, so in-flight sessions finish.
    cleanups.push(() => ctx.faults.close());
    gauges.database = databaseGauges(store, bus);
    const sweeper = startSweeper(ctx, metrics);
    cleanups.push(() => sweeper.stop());
    await warm;

    const port = (http.address() as AddressInfo).port;
    const url = `http://${urlHost(config.http.host)}:${port}`;
    selfApiUrl = `${url}${API_PREFIX}`;
    logger.info({ url, smtpHost: config.smtp.host, smtpPort: smtp.port, db: config.databaseUrl ? redactUrl(config.databaseUrl) : (config.dbPath ?? ':memory:') }, 'inboxkit server started');

    let closing: Promise<void> | null = null;
    let drained: Promise<void> | null = null;
    return {
      url,
      apiUrl: `${url}${API_PREFIX}`,
      smtpHost: config.smtp.host,
      smtpPort: smtp.port,
      viewerUrl: `${url}/${options.operatorToken === undefined ? '' : `#key=${options.operatorToken}`}`,
      config,
      sweepExpired: () => sweeper.sweep(),
      // close() during a drain does not wait for it: it stops everything now.
      drain: () => (drained ??= drain!.run().then(() => (closing ??= runCleanups()))),
      close: () => (closing ??= runCleanups()),
    };
  } catch (error) {
    await warm;
    await runCleanups();
    throw error;
  }
}
