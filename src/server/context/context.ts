/**
 * The server's context: everything a route, the SMTP intake or the sweeper
 * needs, passed explicitly (no module-level singletons), and the one factory
 * that builds it for `startServer`, the CLI and the tests alike.
 *
 * @packageDocumentation
 */
import { pino } from 'pino';
import type { Logger } from 'pino';
import type { AuthVariables } from '../auth/middleware.ts';
import { hashSecret } from '../auth/secrets.ts';
import { createEventBus } from '../events/bus.ts';
import type { EventBus } from '../events/types.ts';
import { createDeliveryFaults } from '../faults/table.ts';
import { createIntake } from '../intake/intake.ts';
import { isSharedService } from '../auth/caller.ts';
import { createWebhooks } from '../sms/callbacks.ts';
import { createNodePools } from './pools.ts';
import { createSnsSigning, noSnsCertificate } from '../sms/sns-signing.ts';
import type { SnsSigning } from '../sms/sns-signing.ts';
import type { ServiceListeners } from '../../wire/service.ts';
import type { NodePools } from './pools.ts';
import type { Webhooks } from '../sms/callbacks.ts';
import type { Intake } from '../intake/intake.ts';
import type { StoreObserver } from '../intake/store-copies.ts';
import type { ForwardQueue } from '../forward/forwarder.ts';
import { createHtmlReader } from '../mail/prepare.ts';
import type { HtmlReader, PrepareOptions, PreparedMessage } from '../mail/prepare.ts';
import type { DeliveryFaults } from '../faults/table.ts';
import { createStreamCaps } from '../auth/caps.ts';
import { createLiveStreams } from './live-streams.ts';
import type { LiveStreams } from './live-streams.ts';
import type { StreamCaps } from '../auth/caps.ts';
import type { Store } from '../storage/contract/types.ts';
import { createSpamScanner } from '../spam/scanner.ts';
import type { SpamScanner } from '../spam/scanner.ts';
import type { ResolvedConfig } from './config.ts';

/** Hono variables set by the app's middleware, readable in every route as `c.var.*`. */
export interface AppVariables extends AuthVariables {
  /** Id of this request, echoed in `X-Request-Id` and in 500 bodies. */
  requestId: string;
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
  /** The per-inbox delivery faults the SMTP intake honours (an extension); whoever owns the context closes them. */
  faults: DeliveryFaults;
  /**
   * The one intake every channel calls (SMTP, the SMS and email providers'
   * APIs): reach, faults, one copy per inbox, publish after commit, with the
   * store's bounds. Whoever owns the context closes it (`intake.close()`).
   */
  intake: Intake;
  /** The node's pools (check shares, the analysis runner), made once; whoever owns the context closes them. */
  pools: NodePools;
  /** The node's webhook sender (provider callbacks and receipts), within its bounds. */
  webhooks: Webhooks;
  /** The ports this service listens on, filled in as they open (webhooks never call them). */
  ownPorts: number[];
  /** The key SNS posts are signed with and the HTTPS listener of its certificate, made on first need; whoever owns the context closes it. */
  snsSigning: SnsSigning;
  /** Where the mail listeners are (`GET /service`), filled in as they open; null for one not started. */
  listening: ServiceListeners;
  /** The slots of open event streams per credential and per client address on this node. */
  streamCaps: StreamCaps;
  /** The event streams open on this node (a drain hands them over) and what happens to them. */
  liveStreams: LiveStreams;
  /** A message's HTML as readers are sent it: sanitized now when that was left to them, with the node's bounded cache. */
  html: HtmlReader;
  /** The spam scanner of `POST /messages/{id}/spam-check` (from `config.spamCheck`), or null/absent when none is configured. */
  spamScanner?: SpamScanner | null;
}

/** What {@link createServerContext} is given; only the store and the configuration are required. */
export interface ServerContextOptions {
  /** The store; its owner closes it. */
  store: Store;
  /** The resolved configuration (see `resolveConfig`). */
  config: ResolvedConfig;
  /**
   * The logger.
   * @defaultValue a silent pino logger
   */
  logger?: Logger;
  /**
   * The clock, in epoch milliseconds.
   * @defaultValue `Date.now`
   */
  now?: () => number;
  /**
   * The event bus.
   * @defaultValue an in-process bus that logs a failing listener
   */
  bus?: EventBus;
  /**
   * The operator token that sees every inbox (kept only as its hash).
   * @defaultValue none: no `tmo_…` credential is accepted
   */
  operatorToken?: string;
  /**
   * Makes the key and self-signed certificate SNS posts are signed with (SES's events), on first need.
   * @defaultValue none: an SNS subscription is refused, naming why
   */
  snsCertificate?: (names: string[]) => Promise<{ key: string; cert: string }>;
  /**
   * The node's mail parts the intake uses: where large messages are parsed
   * (a worker pool), the forwarding queue, and the metrics told of stored copies.
   * @defaultValue parsing on the calling thread, no forwarding, no metrics
   */
  mail?: {
    prepare?: (raw: Uint8Array, options: PrepareOptions) => Promise<PreparedMessage>;
    forwarder?: ForwardQueue | null;
    observer?: StoreObserver | null;
  };
}

/**
 * Builds a server context: the given parts, with an in-process bus, a silent
 * logger, the wall clock and SHA-256 secret hashing where none is given, no
 * operator token unless one is given, and the delivery faults of its store
 * (`ctx.faults.close()` ends the delays in progress).
 *
 * @example
 * ```ts
 * const store = createSqliteStore();
 * const app = createApp(createServerContext({ store, config: resolveConfig() }));
 * ```
 */
export function createServerContext(options: ServerContextOptions): ServerContext {
  const logger = options.logger ?? pino({ level: 'silent' });
  const bus = options.bus ?? createEventBus({ onListenerError: (err, event) => logger.error({ err, event: event.type }, 'event listener failed') });
  const now = options.now ?? Date.now;
  const faults = createDeliveryFaults({ store: options.store, now });
  const intake = createIntake({
    store: options.store,
    bus,
    logger: logger.child({ component: 'intake' }),
    now,
    limits: { maxMessagesPerInbox: options.config.maxMessagesPerInbox, maxStoredBytes: options.config.bounds.maxStoredBytes },
    forwarder: options.mail?.forwarder ?? null,
    faults,
    prepare: options.mail?.prepare,
    observer: options.mail?.observer,
  });
  const ownPorts: number[] = [];
  const webhooks = createWebhooks({ shared: isSharedService(options.config), allow: options.config.operations.webhookAllow, ownPorts: () => ownPorts });
  return {
    store: options.store,
    bus,
    config: options.config,
    logger,
    now,
    hash: hashSecret,
    operatorTokenHash: options.operatorToken === undefined ? null : hashSecret(options.operatorToken),
    faults,
    intake,
    webhooks,
    ownPorts,
    snsSigning: createSnsSigning({ listenHost: options.config.http.host, ownPorts, makeCertificate: options.snsCertificate ?? noSnsCertificate }),
    listening: { smtp: null, imap: null, pop3: null },
    pools: createNodePools(),
    streamCaps: createStreamCaps({ perCredential: options.config.bounds.maxStreamsPerCredential, perAddress: options.config.bounds.maxStreamsPerAddress }),
    liveStreams: createLiveStreams(),
    html: createHtmlReader(),
    spamScanner: options.config.spamCheck ? createSpamScanner({ ...options.config.spamCheck, maxInFlight: options.config.bounds.spamCheckConcurrency }) : null,
  };
}
