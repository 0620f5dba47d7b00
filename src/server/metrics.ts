/**
 * The service's metrics in the Prometheus text format, by prom-client (an
 * optional peer dependency, loaded only when metrics are on): mail accepted
 * and refused by reason, delivery latency, open streams and SMTP sessions,
 * caps reached, database errors and the drain state. One registry per
 * service, never prom-client's global one.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import type * as PromClientModule from 'prom-client';
import { PROVIDER_IDS } from '../wire/providers.ts';
import type { StoredCounts } from './storage/contract/types.ts';
import { cachedStoredCounts } from './stored-counts.ts';
import { COUNTED_METHODS } from './http/observe.ts';

type PromClient = typeof PromClientModule;

/** Why the SMTP intake refused a recipient, a message or a connection (greylisting is a `fault`). */
export type RefusedReason =
  | 'unknown_recipient'
  | 'fault'
  | 'too_large'
  | 'lookup_failed'
  | 'storage_failed'
  | 'draining'
  | 'cap_total'
  | 'cap_per_address'
  | 'auth_failed';

/** Every refusal reason: each series exists at zero from the start. */
export const REFUSED_REASONS: readonly RefusedReason[] = ['unknown_recipient', 'fault', 'too_large', 'lookup_failed', 'storage_failed', 'draining', 'cap_total', 'cap_per_address', 'auth_failed'];
/** Every cap counted by `inboxkit_caps_reached_total`. */
export const CAPS = ['smtp_connections', 'smtp_connections_per_address', 'http_429'] as const;
/** Every source counted by `inboxkit_database_errors_total`. */
export const DATABASE_ERROR_SOURCES = ['smtp', 'http', 'pool'] as const;
/** What happens in an SMTP session, counted by `inboxkit_smtp_events_total`. */
export const SMTP_EVENTS = ['session', 'starttls', 'auth_succeeded', 'auth_failed', 'auth_error'] as const;
/** What happens to event streams, counted by `inboxkit_stream_events_total`. */
export const STREAM_HAPPENINGS = ['opened', 'resumed', 'event', 'slow_client_dropped', 'handed_over'] as const;
/** What a drain cut, counted by `inboxkit_drain_cut_total`. */
export const DRAIN_CUTS = ['smtp_sessions', 'http_requests'] as const;
/** The `status` of `inboxkit_http_requests_total`: the class of the answer's status code. */
export const HTTP_STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/** The class of a status code (`404` → `4xx`; a 1xx, never answered by the app, counts as `2xx`). */
export function statusClass(status: number): (typeof HTTP_STATUS_CLASSES)[number] {
  return status >= 500 ? '5xx' : status >= 400 ? '4xx' : status >= 300 ? '3xx' : '2xx';
}

/** What a drain did (see `drain.ts`). */
export interface DrainFigures {
  seconds: number;
  cutSmtpSessions: number;
  cutHttpRequests: number;
}

/** What the service reports to its metrics; every method is cheap and never throws. */
export interface ServiceMetrics {
  /** A message was stored: `copies` inbox copies. */
  accepted(copies: number): void;
  /** A recipient, message or connection was refused. */
  refused(reason: RefusedReason): void;
  /** The intake stored `copies` inbox copies that came through `channel` (`smtp`, or a provider's id). */
  stored(channel: string, copies: number): void;
  /** Seconds from the end of DATA to the copies stored and published to this node's streams. */
  delivered(seconds: number): void;
  /** A caller reached a cap (`smtp_connections`, `smtp_connections_per_address`, `http_429`). */
  capReached(cap: (typeof CAPS)[number]): void;
  /** The database failed (`source`: `smtp`, `http`, `pool`). */
  databaseError(source: (typeof DATABASE_ERROR_SOURCES)[number]): void;
  /** Something happened in an SMTP session (a session opened, STARTTLS, an AUTH result). */
  smtp(event: (typeof SMTP_EVENTS)[number]): void;
  /** Bytes of a message's DATA received. */
  smtpBytes(bytes: number): void;
  /** An app request answered: its route pattern (`/api/v1/inboxes/:id`, `unmatched`), method and status. */
  http(route: string, method: string, status: number, seconds: number): void;
  /**
   * The app's route table (each route's method and pattern): every route's
   * request series exist at zero from then on, for each status class, and
   * `unmatched` for each method.
   */
  routes(table: ReadonlyArray<{ method: string; path: string }>): void;
  /** Something happened to event streams (`count` of them). */
  stream(what: (typeof STREAM_HAPPENINGS)[number], count: number): void;
  /** Whether the node is draining. */
  setDraining(draining: boolean): void;
  /** An expiry sweep ended (see `expiry.ts`). */
  swept(expiredInboxes: number, retainedMessages: number, seconds: number): void;
  /** A drain is over: how long it took and what it cut. */
  drained(figures: DrainFigures): void;
  /**
   * Resolves once a scrape began after the last count changed (at once when
   * nothing was ever scraped, or nothing changed since), or when two of the
   * scraper's intervals (the time between its last two scrapes) and half a
   * second have passed since its last scrape with none (it stopped coming),
   * or at `deadline` (epoch ms): a draining node's last counts reach
   * Prometheus.
   */
  scraped(deadline: number): Promise<void>;
  /** The text exposition, or null when metrics are off. */
  render(): Promise<{ contentType: string; body: string } | null>;
}

/** The gauges read at each scrape. */
export interface MetricsGauges {
  openStreams(): number;
  openSmtpSessions(): number;
  /** What the store holds (read at most every 30 s: `stored-counts.ts`); absent, its gauges are not exposed. */
  stored?: () => Promise<StoredCounts>;
  /**
   * The PostgreSQL side (absent on SQLite: its series are not exposed): the
   * pool's connections and whether the `LISTEN` connection is up.
   */
  database?: () => { busy: number; idle: number; waiting: number; listening: boolean } | null;
}

/** Metrics that record nothing (metrics off). */
export function noMetrics(): ServiceMetrics {
  return {
    accepted() {},
    refused() {},
    stored() {},
    delivered() {},
    capReached() {},
    databaseError() {},
    smtp() {},
    smtpBytes() {},
    http() {},
    routes() {},
    stream() {},
    setDraining() {},
    drained() {},
    swept() {},
    scraped: () => Promise.resolve(),
    render: () => Promise.resolve(null),
  };
}

/** Loads prom-client, or explains how to get it. */
async function loadPromClient(): Promise<PromClient> {
  try {
    return await import('prom-client');
  } catch (error) {
    throw new Error('inboxkit: metrics need the optional package prom-client; install it next to inboxkit (npm install prom-client), or leave metrics off.', { cause: error });
  }
}

/** inboxkit's version, from the package.json beside `src/` and `dist/` (`unknown` when it cannot be read). */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** A counter with every label value present at zero from the start. */
function counter<L extends string>(prom: PromClient, registry: PromClientModule.Registry, name: string, help: string, label?: { name: string; values: readonly L[] }): PromClientModule.Counter<string> {
  const made = new prom.Counter({ name, help, labelNames: label ? [label.name] : [], registers: [registry] });
  if (label) for (const value of label.values) made.inc({ [label.name]: value }, 0);
  else made.inc(0);
  return made;
}

/** The series of the service (not prom-client's process metrics). */
function serviceSeries(prom: PromClient, registry: PromClientModule.Registry, gauges: MetricsGauges) {
  const gauge = (name: string, help: string, read?: () => number) =>
    new prom.Gauge({ name, help, registers: [registry], ...(read ? { collect(this: PromClientModule.Gauge) { this.set(read()); } } : {}) });
  new prom.Gauge({ name: 'inboxkit_build_info', help: 'Always 1; its version label is the inboxkit version this node runs (for rolling upgrades).', labelNames: ['version'], registers: [registry] }).set({ version: packageVersion() }, 1);
  gauge('inboxkit_streams_open', 'Event streams open on this node.', gauges.openStreams);
  gauge('inboxkit_smtp_sessions_open', 'SMTP sessions open on this node.', gauges.openSmtpSessions);
  return {
    accepted: counter(prom, registry, 'inboxkit_mail_accepted_total', 'Inbox copies of messages stored by the SMTP intake of this node.'),
    stored: counter(prom, registry, 'inboxkit_intake_stored_total', 'Inbox copies stored by this node, by the channel they came through (smtp, or an SMS or email provider API).', { name: 'channel', values: ['smtp', ...PROVIDER_IDS] }),
    refused: counter(prom, registry, 'inboxkit_mail_refused_total', 'Recipients, messages and connections the SMTP intake of this node refused, by reason.', { name: 'reason', values: REFUSED_REASONS }),
    latency: new prom.Histogram({
      name: 'inboxkit_delivery_latency_seconds',
      help: 'From the end of DATA to the copies stored and published to the event streams of this node.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    caps: counter(prom, registry, 'inboxkit_caps_reached_total', 'Requests and connections refused because a cap was reached, by cap.', { name: 'cap', values: CAPS }),
    dbErrors: counter(prom, registry, 'inboxkit_database_errors_total', 'Database failures seen by this node, by where.', { name: 'source', values: DATABASE_ERROR_SOURCES }),
    smtp: counter(prom, registry, 'inboxkit_smtp_events_total', 'SMTP sessions opened, STARTTLS done and AUTH results on this node, by event.', { name: 'event', values: SMTP_EVENTS }),
    smtpBytes: counter(prom, registry, 'inboxkit_smtp_received_bytes_total', 'Bytes of message data (DATA) received by the SMTP intake of this node.'),
    httpRequests: new prom.Counter({ name: 'inboxkit_http_requests_total', help: 'API and viewer requests answered by this node, by route pattern, method and status class (2xx, 3xx, 4xx, 5xx; not /livez, /readyz, /metrics).', labelNames: ['route', 'method', 'status'], registers: [registry] }),
    httpSeconds: new prom.Histogram({
      name: 'inboxkit_http_request_duration_seconds',
      help: 'Time to the response head of API and viewer requests on this node, by route pattern and method (an event stream: until it opened).',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    streams: counter(prom, registry, 'inboxkit_stream_events_total', 'What happened to event streams on this node: opened, resumed from Last-Event-ID, event (sent), slow_client_dropped, handed_over (by a drain).', { name: 'what', values: STREAM_HAPPENINGS }),
    draining: gauge('inboxkit_draining', '1 while this node drains (readiness fails), else 0.'),
    drainSeconds: gauge('inboxkit_drain_duration_seconds', 'How long the last drain of this node took, until nothing was left or its timeout cut the rest (0 before a drain).'),
    drainCut: counter(prom, registry, 'inboxkit_drain_cut_total', 'What drains of this node cut at --drain-timeout: SMTP sessions and HTTP requests still open.', { name: 'what', values: DRAIN_CUTS }),
    expired: counter(prom, registry, 'inboxkit_expired_inboxes_deleted_total', 'Expired inboxes (and their mail) deleted by the expiry sweeps of this node.'),
    retained: counter(prom, registry, 'inboxkit_retention_messages_deleted_total', 'Messages past their retention (--message-ttl) deleted by the expiry sweeps of this node.'),
    sweepSeconds: new prom.Histogram({ name: 'inboxkit_sweep_duration_seconds', help: 'How long each expiry sweep of this node took.', buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30], registers: [registry] }),
  };
}

/** The gauges of what the store holds: one cached read of the store serves the three (`stored-counts.ts`). */
function storedSeries(prom: PromClient, registry: PromClientModule.Registry, read: NonNullable<MetricsGauges['stored']>): void {
  const counts = cachedStoredCounts(read);
  const what = { inboxes: 'Email inboxes', phones: 'Phones (inboxes whose address is an E.164 number)', messages: 'Messages (emails and SMS)' } as const;
  for (const key of ['inboxes', 'phones', 'messages'] as const) {
    new prom.Gauge({
      name: `inboxkit_stored_${key}`,
      help: `${what[key]} stored in the database this node uses, expired ones not yet swept included; read at most every 30 s.`,
      registers: [registry],
      async collect() {
        this.set((await counts())?.[key] ?? 0);
      },
    });
  }
}

/** The PostgreSQL gauges, read at each scrape: only on a node with a PostgreSQL store. */
function databaseSeries(prom: PromClient, registry: PromClientModule.Registry, read: NonNullable<MetricsGauges['database']>): void {
  new prom.Gauge({
    name: 'inboxkit_database_pool_connections',
    help: 'Connections of this node\'s PostgreSQL pool, by state: busy (in use), idle, waiting (queries waiting for a connection).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const now = read();
      for (const state of ['busy', 'idle', 'waiting'] as const) this.set({ state }, now?.[state] ?? 0);
    },
  });
  new prom.Gauge({
    name: 'inboxkit_database_listen_connected',
    help: '1 while this node\'s LISTEN connection to PostgreSQL (the event streams across nodes) is up, else 0.',
    registers: [registry],
    collect() {
      this.set(read()?.listening ? 1 : 0);
    },
  });
}

/**
 * Creates the metrics of one service on a registry of its own.
 *
 * @example
 * ```ts
 * const metrics = await createMetrics({ openStreams: () => 0, openSmtpSessions: () => 0 });
 * metrics.accepted(1);
 * const text = await metrics.render(); // text.body: '# HELP inboxkit_mail_accepted_total …'
 * ```
 */
export async function createMetrics(gauges: MetricsGauges): Promise<ServiceMetrics> {
  const prom = await loadPromClient();
  const registry = new prom.Registry();
  // prom-client's own names (process_cpu_seconds_total, nodejs_eventloop_lag_seconds …), as every Node service exposes them.
  prom.collectDefaultMetrics({ register: registry });
  const s = serviceSeries(prom, registry, gauges);
  if (gauges.database) databaseSeries(prom, registry, gauges.database);
  if (gauges.stored) storedSeries(prom, registry, gauges.stored);
  s.draining.set(0);
  s.drainSeconds.set(0);
  // When a count last changed, and when the last two scrapes began (performance.now()).
  let changed = 0;
  let scrapeBegan = -1;
  let scrapeBefore = -1;
  const count = <T extends unknown[]>(record: (...args: T) => void) => (...args: T) => {
    changed = performance.now();
    record(...args);
  };
  return {
    accepted: count((copies) => s.accepted.inc(copies)),
    refused: count((reason) => s.refused.inc({ reason })),
    stored: count((channel, copies) => s.stored.inc({ channel }, copies)),
    delivered: count((seconds) => s.latency.observe(seconds)),
    capReached: count((cap) => s.caps.inc({ cap })),
    databaseError: count((source) => s.dbErrors.inc({ source })),
    smtp: count((event) => s.smtp.inc({ event })),
    smtpBytes: count((bytes) => s.smtpBytes.inc(bytes)),
    http: count((route, method, status, seconds) => {
      s.httpRequests.inc({ route, method, status: statusClass(status) });
      s.httpSeconds.observe({ route, method }, seconds);
    }),
    routes: (table) => {
      const known = [...new Set(table.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`))].map((key) => key.split(' ') as [string, string]);
      for (const [method, route] of [...known, ...[...COUNTED_METHODS, 'other'].map((method) => [method, 'unmatched'] as const)]) {
        for (const status of HTTP_STATUS_CLASSES) s.httpRequests.inc({ route, method, status }, 0);
        if (route !== 'unmatched') s.httpSeconds.zero({ route, method });
      }
    },
    stream: count((what, n) => s.streams.inc({ what }, n)),
    swept: count((expiredInboxes, retainedMessages, seconds) => {
      s.expired.inc(expiredInboxes);
      s.retained.inc(retainedMessages);
      s.sweepSeconds.observe(seconds);
    }),
    setDraining: (on) => s.draining.set(on ? 1 : 0),
    drained: (figures) => {
      s.drainSeconds.set(figures.seconds);
      if (figures.cutSmtpSessions > 0 || figures.cutHttpRequests > 0) changed = performance.now();
      s.drainCut.inc({ what: 'smtp_sessions' }, figures.cutSmtpSessions);
      s.drainCut.inc({ what: 'http_requests' }, figures.cutHttpRequests);
    },
    scraped: async (deadline) => {
      // A scraper that stopped coming (Prometheus away) is not waited for past two of its intervals.
      const interval = scrapeBefore >= 0 ? scrapeBegan - scrapeBefore : 0;
      const givenUpAt = scrapeBegan + 2 * interval + 500;
      while (scrapeBegan >= 0 && scrapeBegan <= changed && performance.now() < givenUpAt && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(50, deadline - Date.now()))).unref());
      }
    },
    render: async () => {
      scrapeBefore = scrapeBegan;
      scrapeBegan = performance.now();
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** What the SMTP intake tells the metrics. */
export interface IntakeMetricsObserver {
  accepted(copies: number, seconds: number): void;
  refused(reason: RefusedReason): void;
  session(): void;
  secured(): void;
  authenticated(result: 'succeeded' | 'failed' | 'error'): void;
  received(bytes: number): void;
}

/**
 * The PostgreSQL gauges' reader for a store and its bus: the store's pool
 * (`PostgresStore.poolState`) and the bus's `LISTEN` connection (its
 * `connected`); a reader of null for any other store, or before they exist.
 */
export function databaseGauges(store: unknown, bus: unknown): () => { busy: number; idle: number; waiting: number; listening: boolean } | null {
  const pg = store as { kind?: unknown; poolState?: () => { busy: number; idle: number; waiting: number } } | null;
  if (pg?.kind !== 'postgres' || typeof pg.poolState !== 'function') return () => null;
  const poolState = pg.poolState.bind(pg);
  const listen = bus as { connected?: boolean } | undefined;
  return () => ({ ...poolState(), listening: listen?.connected === true });
}

/** The SMTP intake's observer that feeds the metrics: refusals by reason, caps reached, database failures. */
export function intakeObserver(metrics: ServiceMetrics): IntakeMetricsObserver {
  return {
    session: () => metrics.smtp('session'),
    secured: () => metrics.smtp('starttls'),
    authenticated: (result) => metrics.smtp(result === 'succeeded' ? 'auth_succeeded' : result === 'failed' ? 'auth_failed' : 'auth_error'),
    received: (bytes) => metrics.smtpBytes(bytes),
    accepted(copies, seconds) {
      metrics.accepted(copies);
      metrics.delivered(seconds);
    },
    refused(reason) {
      metrics.refused(reason);
      if (reason === 'cap_total') metrics.capReached('smtp_connections');
      if (reason === 'cap_per_address') metrics.capReached('smtp_connections_per_address');
      if (reason === 'storage_failed' || reason === 'lookup_failed') metrics.databaseError('smtp');
    },
  };
}
