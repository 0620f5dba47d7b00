/**
 * The configuration of the local service: the options a caller may give, the
 * resolved shape every part reads, the defaults, and {@link resolveConfig},
 * which applies them and refuses a bad value with a {@link ConfigError}.
 *
 * @packageDocumentation
 */
import { scannerKind } from '../spam/scanner.ts';
import type { Plan } from '../../wire/schemas.ts';
import { DEFAULT_DOMAIN } from '../../wire/defaults.ts';
import { defaultPlans } from '../auth/plans.ts';
import type { PlanId, PlanOptions } from '../auth/plans.ts';
import { DEFAULT_SMTP_CONNECTIONS, resolveBounds } from './bounds.ts';
import type { BoundsOptions, ResolvedBounds } from './bounds.ts';
import { ConfigError } from './config-error.ts';
import { isDatabaseUrl } from '../storage/postgres/url.ts';
import { resolveMailbox } from './mailbox.ts';
import type { MailboxOptions, ResolvedMailboxConfig } from './mailbox.ts';
import { resolveOperations } from './operations.ts';
import type { OperationsOptions, ResolvedOperations } from './operations.ts';

export { ConfigError } from './config-error.ts';

/** The configuration of a running service, every default applied. */
export interface ResolvedConfig {
  /** Mail domains; the first is the default. */
  domains: string[];
  /** Where the HTTP API listens. */
  http: { host: string; port: number };
  /** The SMTP intake: where it listens, and how it treats connections. */
  smtp: ResolvedSmtpConfig;
  /** The event stream's keep-alive and slow-client bound. */
  stream: ResolvedStreamConfig;
  /** Retry schedule of forwarding (used only with a `relayUrl`). */
  forwarding: ResolvedForwardingConfig;
  /** SQLite file, or null for an in-memory database (or when `databaseUrl` is set). */
  dbPath: string | null;
  /** PostgreSQL connection URL when the service runs on PostgreSQL (several nodes may share it), else null. */
  databaseUrl: string | null;
  /** The plans and what they allow. Anonymous and inbox-token callers get `guest`; users get their own plan. */
  plans: Record<PlanId, Plan>;
  /** Largest message the SMTP intake accepts, in bytes. */
  maxMessageBytes: number;
  /** Messages kept per inbox; older ones are evicted. Null keeps all. */
  maxMessagesPerInbox: number | null;
  /** Recipients accepted per SMTP transaction. */
  maxRecipients: number;
  /** Largest HTTP request body, in bytes. */
  maxRequestBytes: number;
  /** SMTP relay URL for forwarding (e.g. `smtp://127.0.0.1:2525`), or null when forwarding is unavailable. */
  relayUrl: string | null;
  /** The spam scanner asked by `POST /messages/{id}/spam-check`, or null when none is configured. */
  spamCheck: { url: string; timeoutMs: number } | null;
  /** Lifetime of a session token from the PKCE exchange, in seconds. */
  sessionTtlSeconds: number;
  /** Lifetime of a connect code, in seconds. */
  connectCodeTtlSeconds: number;
  /** How often expired inboxes are swept, in milliseconds. */
  sweepIntervalMs: number;
  /** Length of a rate-limit window, in seconds. The allowance per window comes from the plans (`requestsPerMinute`). */
  rateLimitWindowSeconds: number;
  /** API keys (`tm_…`) to accept; each becomes a premium user at start. */
  apiKeys: string[];
  /** What one caller may hold and which hosts are answered (see `BoundsOptions`). */
  bounds: ResolvedBounds;
  /** Behind a balancer, drain, metrics (see `OperationsOptions`). */
  operations: ResolvedOperations;
  /** IMAP and POP3 (see `MailboxOptions`). */
  mailbox: ResolvedMailboxConfig;
}

/** A key and certificate (PEM) for STARTTLS. */
export interface TlsKeyPair {
  /** The private key, PEM. */
  key: string | Buffer;
  /** The certificate (chain), PEM. */
  cert: string | Buffer;
}

/** The SMTP part of {@link ResolvedConfig}. */
export interface ResolvedSmtpConfig {
  /** Host the intake binds to. */
  host: string;
  /** Port, 0 for a free one. */
  port: number;
  /** STARTTLS key and certificate, or null when STARTTLS is not offered. */
  tls: TlsKeyPair | null;
  /** Wait before the 220 greeting, in milliseconds (a client that talks first gets 421). */
  greetingDelayMs: number;
  /** Idle time after which a connection that owes the server input is closed with 421, and the deadline of one line, in milliseconds. */
  socketTimeoutMs: number;
  /** Most simultaneous SMTP connections; the next one gets 421 and is closed. Null: no cap. */
  maxConnections: number | null;
}

/** The event-stream part of {@link ResolvedConfig}. */
export interface ResolvedStreamConfig {
  /** Interval of the `: ping` comment, in milliseconds. */
  pingIntervalMs: number;
  /** Bytes a stream connection may have queued before it is dropped as too slow. */
  maxBufferedBytes: number;
}

/** The forwarding part of {@link ResolvedConfig}. */
export interface ResolvedForwardingConfig {
  /** Attempts per message, the first included. */
  attempts: number;
  /** Delay before the first retry, in milliseconds; doubled after each failure, with jitter. */
  baseDelayMs: number;
  /** Upper bound of a retry delay, in milliseconds. */
  maxDelayMs: number;
}

export { DEFAULT_DOMAIN };

/** Default largest message: 10 MB. */
const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The configuration a caller may give; everything is optional. */
export interface ConfigOptions extends BoundsOptions, OperationsOptions, MailboxOptions {
  /**
   * Mail domains; the first is the default.
   * @defaultValue `['inboxkit.example.com']` ({@link DEFAULT_DOMAIN}: why it, and why mail to it never leaves)
   */
  domains?: string[];
  /**
   * Host the HTTP API binds to.
   * @defaultValue `'127.0.0.1'`
   */
  host?: string;
  /**
   * HTTP port; 0 picks a free one.
   * @defaultValue `0`
   */
  port?: number;
  /**
   * Host the SMTP intake binds to.
   * @defaultValue the HTTP host
   */
  smtpHost?: string;
  /**
   * SMTP port; 0 picks a free one.
   * @defaultValue `0`
   */
  smtpPort?: number;
  /**
   * Offer STARTTLS on the SMTP intake with this key and certificate (PEM).
   * @defaultValue `null` (STARTTLS not offered)
   */
  smtpTls?: TlsKeyPair | null;
  /**
   * Wait before the SMTP 220 greeting, in milliseconds; a client that talks
   * before it gets 421 (smtp-server's early-talker check).
   * @defaultValue `0`
   */
  smtpGreetingDelayMs?: number;
  /**
   * Idle time after which an SMTP connection that owes the server input (a
   * silent or stalled client) is answered 421 and closed, in milliseconds.
   * The wait for the server's own reply does not count. Also the deadline of
   * one line from its first byte to its end, so a client trickling bytes
   * (slowloris) is closed as well.
   * @defaultValue `60000`
   */
  smtpSocketTimeoutMs?: number;
  /**
   * Most simultaneous SMTP connections on this node; the next one is answered 421 and closed.
   * `null`: no cap.
   * @defaultValue `1000`
   */
  smtpMaxConnections?: number | null;
  /**
   * Interval of the event stream's `: ping` comment, in milliseconds.
   * @defaultValue `15000`
   */
  streamPingIntervalMs?: number;
  /**
   * Bytes an event-stream connection may have queued (not yet read by the
   * client) before it is dropped as too slow; the client resumes with Last-Event-ID.
   * @defaultValue 1 MiB
   */
  streamMaxBufferedBytes?: number;
  /**
   * Retry schedule of forwarding through `relayUrl`; each field replaces its default.
   * @defaultValue `{ attempts: 5, baseDelayMs: 1000, maxDelayMs: 60000 }`
   */
  forwarding?: Partial<ResolvedForwardingConfig>;
  /**
   * SQLite database file (WAL). Omit for an in-memory database that vanishes with the server.
   * @defaultValue `null` (in memory)
   */
  dbPath?: string | null;
  /**
   * Where the data lives: a PostgreSQL URL (`postgres://user:password@host:5432/db`),
   * which several service nodes may share, or a SQLite file path (like `dbPath`).
   * @defaultValue `dbPath`
   */
  db?: string | null;
  /**
   * Inbox lifetime in seconds for every plan (null: inboxes never expire). Overrides the plans' `inboxTtlSeconds`.
   * @defaultValue guest 86 400 (one day), premium 604 800 (one week)
   */
  inboxTtlSeconds?: number | null;
  /**
   * Requests per minute per credential (per client address for anonymous calls), for every plan;
   * `null` or `false` turns rate limiting off. Overrides the plans' `requestsPerMinute`.
   * @defaultValue 6000 for every plan
   */
  rateLimit?: number | null | false;
  /**
   * Length of a rate-limit window, in seconds. The plans' `requestsPerMinute`
   * is the allowance per window, whatever its length.
   * @defaultValue `60`
   */
  rateLimitWindowSeconds?: number;
  /** Fine-grained plan entitlements. */
  plans?: PlanOptions;
  /**
   * Largest message accepted over SMTP, in bytes.
   * @defaultValue 10 MB
   */
  maxMessageBytes?: number;
  /**
   * Messages kept per inbox (older ones are evicted); null keeps all.
   * @defaultValue `1000`
   */
  maxMessagesPerInbox?: number | null;
  /**
   * Recipients accepted per SMTP transaction.
   * @defaultValue `100`
   */
  maxRecipients?: number;
  /**
   * Largest HTTP request body, in bytes.
   * @defaultValue 1 MiB
   */
  maxRequestBytes?: number;
  /**
   * SMTP relay for forwarding (`smtp://host:port`); without one, setting `forwardTo` answers 400 `forwarding_unavailable`.
   * @defaultValue `null`
   */
  relayUrl?: string | null;
  /**
   * A spam scanner for `POST /messages/{id}/spam-check`: `spamd://host:port`
   * (SpamAssassin's spamd) or `rspamd://host:port` (Rspamd's normal worker;
   * `http://` works too). Without one, a spam check answers 400 `spam_check_unavailable`.
   * @defaultValue `null`
   */
  spamCheck?: string | null;
  /**
   * Longest a spam check may take (connecting included), in milliseconds; past it the check answers 502 `spam_check_failed`.
   * @defaultValue `10000`
   */
  spamCheckTimeoutMs?: number;
  /**
   * API keys (`tm_…`) to accept; each becomes its own premium user.
   * @defaultValue `[]`
   */
  apiKeys?: string[];
  /**
   * Session token lifetime in seconds.
   * @defaultValue 2 592 000 (30 days)
   */
  sessionTtlSeconds?: number;
  /**
   * Connect code lifetime in seconds.
   * @defaultValue `300`
   */
  connectCodeTtlSeconds?: number;
  /**
   * How often expired inboxes are swept, in milliseconds.
   * @defaultValue `60000`
   */
  sweepIntervalMs?: number;
}

const DAY = 86_400;

function positiveInt(name: string, value: number, min = 1): number {
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(name, `option ${name} must be an integer >= ${min}, got ${String(value)}.`);
  }
  return value;
}

function smtpTls(tls: TlsKeyPair | null | undefined): TlsKeyPair | null {
  if (tls == null) return null;
  const empty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' || Buffer.isBuffer(v) ? v.length === 0 : true);
  if (empty(tls.key) || empty(tls.cert)) {
    throw new ConfigError('smtpTls', 'option smtpTls needs both a key and a cert (PEM strings or Buffers), or null to not offer STARTTLS.');
  }
  return { key: tls.key, cert: tls.cert };
}

/**
 * Applies the defaults to the given options and checks them.
 *
 * @throws ConfigError naming the option when a value is out of range.
 * @example
 * ```ts
 * const config = resolveConfig({ domains: ['example.test'], inboxTtlSeconds: null });
 * ```
 */
export function resolveConfig(options: ConfigOptions = {}): ResolvedConfig {
  const domains = (options.domains && options.domains.length > 0 ? options.domains : [DEFAULT_DOMAIN]).map((d) => d.trim().toLowerCase());
  for (const d of domains) {
    if (!/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(d)) {
      throw new ConfigError('domains', `"${d}" is not a valid mail domain (give a name like example.test).`);
    }
  }
  const maxMessageBytes = positiveInt('maxMessageBytes', options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
  const plans = defaultPlans(maxMessageBytes);
  for (const id of ['guest', 'premium'] as const) {
    const plan = plans[id];
    Object.assign(plan.entitlements, options.plans?.[id] ?? {});
    if (options.inboxTtlSeconds !== undefined) {
      if (options.inboxTtlSeconds !== null) positiveInt('inboxTtlSeconds', options.inboxTtlSeconds);
      plan.entitlements.inboxTtlSeconds = options.inboxTtlSeconds;
    }
    if (options.rateLimit !== undefined) {
      const rl = options.rateLimit === false ? null : options.rateLimit;
      if (rl !== null) positiveInt('rateLimit', rl);
      plan.entitlements.requestsPerMinute = rl;
    }
  }
  const apiKeys = [...new Set(options.apiKeys ?? [])];
  for (const key of apiKeys) {
    if (!/^tm_[A-Za-z0-9_-]{16,}$/.test(key)) {
      throw new ConfigError('apiKeys', 'an API key must start with "tm_" followed by at least 16 letters, digits, "-" or "_" (create one with `inboxkit keys create`).');
    }
  }
  const db = options.db ?? options.dbPath ?? null;
  const onPostgres = db !== null && isDatabaseUrl(db);
  if (db !== null && !onPostgres && /^[a-z][a-z0-9+.-]*:\/\//i.test(db)) {
    throw new ConfigError('db', `option db must be a PostgreSQL URL (postgres://… or postgresql://…) or a SQLite file path, got a ${db.slice(0, db.indexOf(':'))}: URL.`);
  }
  const host = options.host ?? '127.0.0.1';
  const maxMessagesPerInbox = options.maxMessagesPerInbox === undefined ? 1000 : options.maxMessagesPerInbox;
  return {
    domains: [...new Set(domains)],
    http: { host, port: positiveInt('port', options.port ?? 0, 0) },
    smtp: {
      host: options.smtpHost ?? host,
      port: positiveInt('smtpPort', options.smtpPort ?? 0, 0),
      tls: smtpTls(options.smtpTls),
      greetingDelayMs: positiveInt('smtpGreetingDelayMs', options.smtpGreetingDelayMs ?? 0, 0),
      socketTimeoutMs: positiveInt('smtpSocketTimeoutMs', options.smtpSocketTimeoutMs ?? 60_000),
      maxConnections: options.smtpMaxConnections === null ? null : positiveInt('smtpMaxConnections', options.smtpMaxConnections ?? DEFAULT_SMTP_CONNECTIONS),
    },
    stream: {
      pingIntervalMs: positiveInt('streamPingIntervalMs', options.streamPingIntervalMs ?? 15_000),
      maxBufferedBytes: positiveInt('streamMaxBufferedBytes', options.streamMaxBufferedBytes ?? 1024 * 1024),
    },
    forwarding: {
      attempts: positiveInt('forwarding.attempts', options.forwarding?.attempts ?? 5),
      baseDelayMs: positiveInt('forwarding.baseDelayMs', options.forwarding?.baseDelayMs ?? 1000, 0),
      maxDelayMs: positiveInt('forwarding.maxDelayMs', options.forwarding?.maxDelayMs ?? 60_000, 0),
    },
    dbPath: onPostgres ? null : db,
    databaseUrl: onPostgres ? db : null,
    plans,
    maxMessageBytes,
    maxMessagesPerInbox: maxMessagesPerInbox === null ? null : positiveInt('maxMessagesPerInbox', maxMessagesPerInbox),
    maxRecipients: positiveInt('maxRecipients', options.maxRecipients ?? 100),
    maxRequestBytes: positiveInt('maxRequestBytes', options.maxRequestBytes ?? 1024 * 1024),
    relayUrl: options.relayUrl ?? null,
    spamCheck: spamCheckOf(options),
    sessionTtlSeconds: positiveInt('sessionTtlSeconds', options.sessionTtlSeconds ?? 30 * DAY),
    connectCodeTtlSeconds: positiveInt('connectCodeTtlSeconds', options.connectCodeTtlSeconds ?? 300),
    sweepIntervalMs: positiveInt('sweepIntervalMs', options.sweepIntervalMs ?? 60_000),
    rateLimitWindowSeconds: positiveInt('rateLimitWindowSeconds', options.rateLimitWindowSeconds ?? 60),
    apiKeys,
    bounds: resolveBounds(options, db === null, maxMessageBytes),
    operations: resolveOperations(options, options.smtpTls != null),
    mailbox: resolveMailbox(options, options.smtpHost ?? host),
  };
}


/** The spam scanner option, checked: its URL must name a scanner the service can talk to. */
function spamCheckOf(options: ConfigOptions): ResolvedConfig['spamCheck'] {
  const timeoutMs = positiveInt('spamCheckTimeoutMs', options.spamCheckTimeoutMs ?? 10_000);
  if (options.spamCheck === undefined || options.spamCheck === null || options.spamCheck === '') return null;
  const kind = scannerKind(options.spamCheck);
  if (kind !== 'spamassassin' && kind !== 'rspamd') throw new ConfigError('spamCheck', `option spamCheck: ${kind}.`);
  return { url: options.spamCheck, timeoutMs };
}
