/**
 * The SMTP listener of the intake: smtp-server's options and its named
 * callbacks (recipient check, data collection); what happens to a message
 * once collected is `delivery.ts`.
 *
 * @packageDocumentation
 */
import type { SMTPServerAddress, SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import { createDelivery, smtpError } from './delivery.ts';
import type { IntakeDeps, IntakeLogger, RecipientDecision } from './delivery.ts';
import { PromptSmtpServer } from './server.ts';
import { DEFAULT_AUTH_LIMITS, createAuthThrottle } from './auth-throttle.ts';
import type { AuthLimits } from './auth-throttle.ts';
import type { RefusalReason } from './server.ts';

export type { IntakeDeps, IntakeLimits, IntakeLogger } from './delivery.ts';
export type { AuthLimits } from './auth-throttle.ts';

/** Options of the SMTP listener. */
export interface IntakeOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /**
   * Wait before the 220 greeting (smtp-server's early-talker check waits 100 ms).
   * @defaultValue 0
   */
  greetingDelayMs?: number;
  /**
   * The name in the greeting and EHLO reply.
   * @defaultValue 'inboxkit'
   */
  name?: string;
  /**
   * Offer STARTTLS with this key and certificate (PEM). Without it STARTTLS is
   * not offered.
   * @defaultValue null
   */
  tls?: { key: string | Buffer; cert: string | Buffer } | null;
  /**
   * Idle time after which a connection that owes the server input (a silent or
   * stalled client) is answered 421 and closed, in milliseconds. Time spent
   * waiting for the server's own reply does not count. It is also the deadline
   * of one line (a command, or a line of message content) from its first byte
   * to its end, so a client that trickles bytes (slowloris) is closed too.
   * @defaultValue 60_000
   */
  socketTimeoutMs?: number;
  /**
   * Most simultaneous connections; the next one is answered 421 and closed.
   * `null`: no cap.
   * @defaultValue null
   */
  maxConnections?: number | null;
  /**
   * Most simultaneous connections from one client address (behind a balancer
   * speaking the PROXY protocol, the client's own); the next one is answered
   * 421 and closed. `null`: no cap.
   * @defaultValue null
   */
  maxConnectionsPerAddress?: number | null;
  /**
   * Read a PROXY protocol (v1) header first, from every peer (`true`) or from
   * these peer addresses only, so that caps and envelopes see the client's
   * address rather than the balancer's.
   * @defaultValue false
   */
  useProxy?: boolean | string[];
  /**
   * SMTP AUTH (PLAIN, LOGIN), offered only after STARTTLS (needs `tls`):
   * `check` says whether a user name and password are good; with `required`
   * mail is refused (530) until the client authenticates.
   * @defaultValue none: AUTH not offered
   */
  auth?: { required: boolean; check(username: string, password: string): Promise<boolean> } | null;
  /**
   * The bounds on failed AUTH attempts, per connection and per client address
   * (see `auth-throttle.ts`); each field defaults on its own.
   * @defaultValue 3 per connection; per address a wait of 250 ms doubling per failure up to 30 s, over 10 minutes
   */
  authLimits?: Partial<AuthLimits>;
  /** Told of what the intake accepts and refuses (the service's metrics). */
  observer?: IntakeObserver;
  /**
   * How long `close()` lets open sessions finish before it cuts them.
   * @defaultValue 1000
   */
  closeTimeoutMs?: number;
  /**
   * How long parsing one message may take before the fallback reading is stored.
   * @defaultValue 10_000
   */
  parseTimeoutMs?: number;
}

/** What the intake tells of its work; each method is cheap and never throws. */
export interface IntakeObserver {
  /** A message was stored as `copies` inbox copies, `seconds` after the end of its DATA. */
  accepted(copies: number, seconds: number): void;
  /** A connection, recipient or message was refused. */
  refused(reason: 'unknown_recipient' | 'fault' | 'too_large' | 'lookup_failed' | 'storage_failed' | 'draining' | 'cap_total' | 'cap_per_address' | 'auth_failed'): void;
  /** A session opened (refused ones included). */
  session?(): void;
  /** A session upgraded with STARTTLS. */
  secured?(): void;
  /** An AUTH answered: the credentials were good, wrong, or could not be checked. */
  authenticated?(result: 'succeeded' | 'failed' | 'error'): void;
  /** Bytes of a message's DATA received (up to the size limit). */
  received?(bytes: number): void;
}

const CAP_REASON = { total: 'cap_total', per_address: 'cap_per_address', draining: 'draining' } as const satisfies Record<RefusalReason, string>;

/** A running SMTP intake. */
export interface SmtpIntake {
  /** The port it listens on (the real one when 0 was asked). */
  port: number;
  /**
   * Starts a drain: each new session is answered 421 (4.3.2) and closed, and
   * an open session gets 421 at its next command outside a transaction, so
   * a transaction in flight ends normally. Resolves once no session is open
   * or `graceMs` has passed.
   */
  drain(graceMs: number): Promise<void>;
  /** Sessions open now. */
  openSessions(): number;
  /**
   * Cuts every open session now (its socket destroyed, a transaction in it
   * lost: the client was never answered 250, so it sends again): the end of
   * a drain whose timeout passed. Resolves with how many were cut.
   */
  cut(): number;
  /** Stops accepting, lets sessions and in-flight deliveries finish, then resolves. */
  close(): Promise<void>;
}

/**
 * `RCPT TO`: accepted for an active inbox (unless its delivery fault says
 * otherwise), 550 for an unknown address, 451 when the lookup failed.
 */
function checkRecipient(decide: (address: string, envelope: object) => Promise<RecipientDecision>, logger: IntakeLogger, observer?: IntakeObserver): NonNullable<SMTPServerOptions['onRcptTo']> {
  return function onRcptTo(address: SMTPServerAddress, session, callback) {
    decide(address.address, session.envelope).then(
      (decision) => {
        if (decision) observer?.refused(decision.reason);
        callback(decision?.error ?? null);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'smtp: recipient lookup failed');
        observer?.refused('lookup_failed');
        callback(smtpError(451, '4.3.0 Temporary failure looking up the recipient, try again'));
      },
    );
  };
}

/**
 * `DATA`: collects the message up to `maxMessageBytes` (past it nothing more
 * is kept and the answer is 552), then hands it to `deliver`, whose reply
 * (or SMTP error) is the answer; any other failure is a 451. Each delivery
 * in progress is in `inFlight` until it settles.
 */
function collectData(
  maxMessageBytes: number,
  logger: IntakeLogger,
  deliver: (raw: Buffer, session: SMTPServerSession) => Promise<string>,
  inFlight: Set<Promise<unknown>>,
  observer?: IntakeObserver,
): NonNullable<SMTPServerOptions['onData']> {
  return function onData(stream: SMTPServerDataStream, session, callback) {
    const chunks: Buffer[] = [];
    let length = 0;
    stream.on('data', (chunk: Buffer) => {
      if (stream.sizeExceeded || length + chunk.length > maxMessageBytes) return;
      chunks.push(chunk);
      length += chunk.length;
    });
    stream.on('error', (error) => {
      logger.warn({ err: error, sessionId: session.id }, 'smtp: data stream failed');
    });
    stream.on('end', () => {
      observer?.received?.(length);
      if (stream.sizeExceeded) {
        observer?.refused('too_large');
        callback(smtpError(552, `5.3.4 Message exceeds the size limit of ${maxMessageBytes} bytes`));
        return;
      }
      const ended = performance.now();
      const job = deliver(Buffer.concat(chunks, length), session).then(
        (reply) => {
          observer?.accepted(reply.split(',').length, (performance.now() - ended) / 1000);
          callback(null, reply);
        },
        (error: unknown) => {
          if (error instanceof Error && 'responseCode' in error) {
            callback(error);
            return;
          }
          observer?.refused('storage_failed');
          logger.error({ err: error, sessionId: session.id }, 'smtp: storing the message failed');
          callback(smtpError(451, '4.3.0 The message could not be stored, try again later'));
        },
      );
      inFlight.add(job);
      void job.finally(() => inFlight.delete(job));
    });
  };
}

/** smtp-server's AUTH options: AUTH only with TLS and a check, PLAIN and LOGIN, never before STARTTLS, failures bounded per connection and per address. */
function authOptionsOf(options: IntakeOptions, logger: IntakeLogger): Partial<SMTPServerOptions> {
  const auth = options.tls ? options.auth : null;
  if (!auth) return { authOptional: true, disabledCommands: options.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'] };
  const limits = { ...DEFAULT_AUTH_LIMITS, ...options.authLimits };
  const throttle = createAuthThrottle(limits);
  const failuresOf = new WeakMap<SMTPServerSession, number>();
  return {
    authOptional: !auth.required,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: false,
    disabledCommands: [],
    onAuth(credentials, session, callback) {
      // The client's own address (from the PROXY header behind a balancer) is charged.
      const address = session.remoteAddress;
      const turn = throttle.turn(address);
      if ('refusal' in turn) {
        options.observer?.refused('auth_failed');
        callback(smtpError(421, turn.refusal));
        return;
      }
      const refuse = () => {
        throttle.failed(address);
        options.observer?.authenticated?.('failed');
        options.observer?.refused('auth_failed');
        const failures = (failuresOf.get(session) ?? 0) + 1;
        failuresOf.set(session, failures);
        if (failures < limits.maxFailuresPerConnection) {
          callback(smtpError(535, '5.7.8 Authentication credentials invalid'));
          return;
        }
        callback(smtpError(421, `4.7.8 Authentication credentials invalid, and ${failures} failed AUTH attempts are the most one connection may make (inboxkit serve --smtp-auth-max-failures): closing`));
      };
      const check = () =>
        auth.check(credentials.username ?? '', credentials.password ?? '').then(
          (good) => {
            if (!good) return refuse();
            options.observer?.authenticated?.('succeeded');
            callback(null, { user: credentials.username });
          },
          (error: unknown) => {
            options.observer?.authenticated?.('error');
            logger.error({ err: error, sessionId: session.id }, 'smtp: checking credentials failed');
            callback(smtpError(454, '4.7.0 Temporary authentication failure, try again'));
          },
        );
      if (turn.waitMs > 0) setTimeout(check, turn.waitMs).unref();
      else void check();
    },
  };
}

/**
 * Starts the SMTP intake: accepts mail for active inboxes, parses it and
 * sanitizes its HTML, stores a copy per recipient inbox, answers 250 once the
 * copies are committed, then publishes a `message` event per copy (the whole
 * stored message) and queues forwarding.
 *
 * @example
 * ```ts
 * const intake = await createSmtpIntake(deps, { host: '127.0.0.1', port: 0 });
 * // … nodemailer.createTransport({ host: '127.0.0.1', port: intake.port }) …
 * await intake.close();
 * ```
 */
export async function createSmtpIntake(deps: IntakeDeps, options: IntakeOptions): Promise<SmtpIntake> {
  const { logger, limits } = deps;
  const inFlight = new Set<Promise<unknown>>();

  const { recipient, deliver } = createDelivery(deps, options.parseTimeoutMs ?? 10_000);

  const serverOptions: SMTPServerOptions = {
    name: options.name ?? 'inboxkit',
    banner: 'inboxkit local SMTP intake',
    size: limits.maxMessageBytes,
    rejectOversized: true,
    maxRecipients: limits.maxRecipients,
    ...authOptionsOf(options, logger),
    hideSTARTTLS: !options.tls,
    hidePIPELINING: false,
    hide8BITMIME: false,
    hideSMTPUTF8: false,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: options.closeTimeoutMs ?? 1000,
    socketTimeout: options.socketTimeoutMs ?? 60_000,
    // smtp-server's own check bounds the sockets still owing a PROXY header; the session cap is PromptSmtpServer's.
    ...(options.maxConnections ? { maxClients: options.maxConnections } : {}),
    ...(options.useProxy ? { useProxy: options.useProxy } : {}),
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    onConnect(_session, callback) {
      options.observer?.session?.();
      // Synchronous on purpose: with no greeting delay the session is ready in
      // the same turn the socket is accepted.
      callback();
    },
    ...(options.tls && options.observer?.secured
      ? {
          onSecure(_socket: unknown, _session: unknown, callback: (error?: Error | null) => void) {
            options.observer?.secured?.();
            callback();
          },
        }
      : {}),
    onMailFrom(_address, _session, callback) {
      callback();
    },
    onRcptTo: checkRecipient(recipient, logger, options.observer),
    onData: collectData(limits.maxMessageBytes, logger, deliver, inFlight, options.observer),
  };

  const server = new PromptSmtpServer(serverOptions, options.greetingDelayMs ?? 0, options.socketTimeoutMs ?? 60_000, {
    total: options.maxConnections ?? null,
    perAddress: options.maxConnectionsPerAddress ?? null,
    ...(options.observer ? { onRefused: (reason: RefusalReason) => options.observer?.refused(CAP_REASON[reason]) } : {}),
  });
  // smtp-server re-emits its listener's errors, a failed listen included; that one
  // is the rejection below, reported once by the caller, not also logged here.
  let listening = false;
  server.on('error', (error: Error) => {
    if (listening) logger.warn({ err: error }, 'smtp: connection error');
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? `port ${options.port} is already in use` : error.message;
      reject(new Error(`inboxkit: cannot listen for SMTP on ${options.host}:${options.port}: ${why}. Pick another SMTP port (0 chooses a free one).`, { cause: error }));
    };
    server.server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.server.off('error', onError);
      listening = true;
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;

  let closing: Promise<void> | null = null;
  return {
    port,
    openSessions: () => server.connections.size,
    cut: () => server.cutAll(),
    async drain(graceMs) {
      server.draining = true;
      const until = Date.now() + graceMs;
      while ((server.connections.size > 0 || inFlight.size > 0) && Date.now() < until) {
        server.closeIdle();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.allSettled([...inFlight]);
      })();
      return closing;
    },
  };
}
