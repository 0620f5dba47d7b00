/**
 * The server's context: everything a route, the SMTP intake or the sweeper
 * needs, passed explicitly (no module-level singletons).
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Entitlements, Plan } from '../wire/schemas.ts';
import type { EventBus } from './events/types.ts';
import type { Store } from './storage/types.ts';
import type { Principal } from './auth/principal.ts';
import type { RateLimitDecision } from './ratelimit.ts';

/** The plan ids of the local service. */
export type PlanId = 'guest' | 'premium';

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
  /** SQLite file, or null for an in-memory database. */
  dbPath: string | null;
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

/** Hono variables set by the app's middleware, readable in every route as `c.var.*`. */
export interface AppVariables {
  /** Who is calling (resolved from the credential; invalid credentials never reach a route). */
  principal: Principal;
  /** Id of this request, echoed in `X-Request-Id` and in 500 bodies. */
  requestId: string;
  /** The rate-limit decision of this request, or null when rate limiting is off. */
  rateLimit: RateLimitDecision | null;
}

/** The Hono environment of every router of the service: `createRouter<AppEnv>()`. */
export interface AppEnv {
  Variables: AppVariables;
}

/** What every part of the service is given. */
export interface ServerContext {
  store: Store;
  bus: EventBus;
  config: ResolvedConfig;
  logger: Logger;
  /** The clock, in epoch milliseconds (injectable for tests). */
  now(): number;
  /** Hash of a secret as stored (SHA-256, hex). Secrets are never stored in clear. */
  hash(secret: string): string;
  /**
   * Hash of the operator token (`tmo_…`) that sees every inbox, or null/absent
   * when the service offers none (see `StartServerOptions.operatorToken`).
   */
  operatorTokenHash?: string | null;
}

/** Hex SHA-256 of a secret: how every secret is stored and looked up. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The default mail domain, under the reserved `.test` TLD. */
export const DEFAULT_DOMAIN = 'inboxkit.test';

/** Default largest message: 10 MB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** Options that shape the plans; each replaces the matching default. */
export interface PlanOptions {
  /** Entitlements of anonymous and inbox-token callers. */
  guest?: Partial<Entitlements>;
  /** Entitlements of users (API key or session). */
  premium?: Partial<Entitlements>;
}

/** The configuration a caller may give; everything is optional. */
export interface ConfigOptions {
  /**
   * Mail domains; the first is the default.
   * @defaultValue `['inboxkit.test']`
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
   * Most simultaneous SMTP connections; the next one is answered 421 and closed.
   * `null`: no cap.
   * @defaultValue `null`
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

/** The local defaults: generous (a local anonymous user may create custom addresses and forward). */
function defaultPlans(maxMessageBytes: number): Record<PlanId, Plan> {
  return {
    guest: {
      id: 'guest',
      name: 'Guest',
      entitlements: {
        apiKeys: false,
        customAddresses: true,
        forwarding: true,
        maxActiveInboxes: null,
        inboxTtlSeconds: DAY,
        maxMessageBytes,
        requestsPerMinute: 6000,
      },
    },
    premium: {
      id: 'premium',
      name: 'Premium',
      entitlements: {
        apiKeys: true,
        customAddresses: true,
        forwarding: true,
        maxActiveInboxes: null,
        inboxTtlSeconds: 7 * DAY,
        maxMessageBytes,
        requestsPerMinute: 6000,
      },
    },
  };
}

function positiveInt(name: string, value: number, min = 1): number {
  if (!Number.isInteger(value) || value < min) {
    throw new TypeError(`inboxkit server: option ${name} must be an integer >= ${min}, got ${String(value)}.`);
  }
  return value;
}

function smtpTls(tls: TlsKeyPair | null | undefined): TlsKeyPair | null {
  if (tls == null) return null;
  const empty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' || Buffer.isBuffer(v) ? v.length === 0 : true);
  if (empty(tls.key) || empty(tls.cert)) {
    throw new TypeError('inboxkit server: option smtpTls needs both a key and a cert (PEM strings or Buffers), or null to not offer STARTTLS.');
  }
  return { key: tls.key, cert: tls.cert };
}

/**
 * Applies the defaults to the given options and checks them.
 *
 * @throws TypeError naming the option when a value is out of range.
 * @example
 * ```ts
 * const config = resolveConfig({ domains: ['example.test'], inboxTtlSeconds: null });
 * ```
 */
export function resolveConfig(options: ConfigOptions = {}): ResolvedConfig {
  const domains = (options.domains && options.domains.length > 0 ? options.domains : [DEFAULT_DOMAIN]).map((d) => d.trim().toLowerCase());
  for (const d of domains) {
    if (!/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(d)) {
      throw new TypeError(`inboxkit server: "${d}" is not a valid mail domain (give a name like example.test).`);
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
      throw new TypeError('inboxkit server: an API key must start with "tm_" followed by at least 16 letters, digits, "-" or "_" (create one with `inboxkit keys create`).');
    }
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
      maxConnections: options.smtpMaxConnections == null ? null : positiveInt('smtpMaxConnections', options.smtpMaxConnections),
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
    dbPath: options.dbPath ?? null,
    plans,
    maxMessageBytes,
    maxMessagesPerInbox: maxMessagesPerInbox === null ? null : positiveInt('maxMessagesPerInbox', maxMessagesPerInbox),
    maxRecipients: positiveInt('maxRecipients', options.maxRecipients ?? 100),
    maxRequestBytes: positiveInt('maxRequestBytes', options.maxRequestBytes ?? 1024 * 1024),
    relayUrl: options.relayUrl ?? null,
    sessionTtlSeconds: positiveInt('sessionTtlSeconds', options.sessionTtlSeconds ?? 30 * DAY),
    connectCodeTtlSeconds: positiveInt('connectCodeTtlSeconds', options.connectCodeTtlSeconds ?? 300),
    sweepIntervalMs: positiveInt('sweepIntervalMs', options.sweepIntervalMs ?? 60_000),
    rateLimitWindowSeconds: positiveInt('rateLimitWindowSeconds', options.rateLimitWindowSeconds ?? 60),
    apiKeys,
  };
}

/** The plan of a principal: guest for anonymous and inbox-token callers, the user's plan otherwise. */
export function planOf(config: ResolvedConfig, principal: Principal): Plan {
  if (principal.kind === 'apiKey' || principal.kind === 'session') {
    return config.plans[principal.user.planId as PlanId] ?? config.plans.premium;
  }
  return config.plans.guest;
}
