import type { SMTPServerAddress, SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import type { EventBus } from '../events/types.ts';
import type { ForwardQueue } from '../forward/forwarder.ts';
import { createIntakeFaultHook } from '../faults/intake-hook.ts';
import type { DeliveryFaults } from '../faults/table.ts';
import { prepareMessage } from '../mail/prepare.ts';
import type { PrepareOptions, PreparedMessage } from '../mail/prepare.ts';
import type { InboxRecord, Store } from '../storage/types.ts';
import { normaliseLineEndings } from './line-endings.ts';
import { PromptSmtpServer } from './server.ts';

/** The logging the intake needs (a pino logger fits). */
export interface IntakeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Limits of the SMTP intake. */
export interface IntakeLimits {
  /**
   * Largest message accepted, in bytes; announced with SIZE, refused with 552.
   * @defaultValue 10 MiB
   */
  maxMessageBytes: number;
  /**
   * Recipients per message; the next RCPT gets 452.
   * @defaultValue 100
   */
  maxRecipients: number;
  /**
   * Messages kept per inbox: once over it, the oldest are evicted after each
   * delivery (mail is never refused for a full inbox). `null`: no limit.
   * @defaultValue null
   */
  maxMessagesPerInbox: number | null;
}

/** Everything the intake depends on, injected. */
export interface IntakeDeps {
  store: Store;
  bus: EventBus;
  logger: IntakeLogger;
  now(): number;
  limits: IntakeLimits;
  /** Where copies for forwarding inboxes go; `null` when the server has no relay. */
  forwarder: ForwardQueue | null;
  /** Per-inbox delivery faults to honour (an extension); none when absent. */
  faults?: DeliveryFaults | null;
  /**
   * Parses a received message and sanitizes its HTML (a `MailPool`'s `prepare`
   * moves large messages off the event loop).
   * @defaultValue `prepareMessage`, on the calling thread
   */
  prepare?: (raw: Uint8Array, options: PrepareOptions) => Promise<PreparedMessage>;
}

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

/** A running SMTP intake. */
export interface SmtpIntake {
  /** The port it listens on (the real one when 0 was asked). */
  port: number;
  /** Stops accepting, lets sessions and in-flight deliveries finish, then resolves. */
  close(): Promise<void>;
}

/** An SMTP reply carried by an error (smtp-server reads `responseCode`). */
function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Splits `local@domain` at its last `@`; null when there is none. */
function splitAddress(address: string): { localPart: string; domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return { localPart: address.slice(0, at), domain: address.slice(at + 1) };
}

/**
 * The intake's two steps past the SMTP dialogue: finding the active inbox of a
 * recipient, and delivering a received message (parse, sanitize the HTML with
 * its `cid:` images resolved, store a copy per inbox, evict, then publish the
 * whole stored copies and queue forwarding once committed). All the work a
 * message needs is done here, once: readers only read. `deliver` resolves
 * with the 250 reply text, or rejects with an SMTP error.
 */
function createDelivery(deps: IntakeDeps, parseTimeoutMs: number) {
  const { store, bus, logger, limits } = deps;
  const prepare = deps.prepare ?? prepareMessage;

  const findInbox = async (address: string): Promise<InboxRecord | null> => {
    const parts = splitAddress(address);
    if (!parts) return null;
    // The store matches the local part and the domain in any case: addresses are unique regardless of case,
    // and many applications lower-case the addresses users type.
    return store.findActiveInboxByAddress(parts.localPart, parts.domain, deps.now());
  };

  const deliver = async (raw: Uint8Array, session: SMTPServerSession): Promise<string> => {
    const { data, bareLineEndings } = normaliseLineEndings(raw);
    const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const recipients = session.envelope.rcptTo.map((r) => r.address);
    // Looked up again: an inbox may have been deleted or expired since RCPT.
    const found = await Promise.all(recipients.map((address) => findInbox(address)));
    const inboxes = new Map<string, InboxRecord>();
    for (const inbox of found) if (inbox) inboxes.set(inbox.id, inbox);
    if (inboxes.size === 0) {
      throw smtpError(550, '5.1.1 None of the recipients has an active inbox any more; create the inbox and send again');
    }
    const { message, fallbackReason } = await prepare(data, { envelopeFrom, timeoutMs: parseTimeoutMs });
    if (fallbackReason !== null) {
      logger.warn({ sessionId: session.id, reason: fallbackReason }, 'smtp: message could not be fully parsed; stored with its raw source and headers');
    }
    if (bareLineEndings > 0) {
      logger.info({ sessionId: session.id, bareLineEndings }, 'smtp: bare line endings normalised to CRLF');
    }
    const stored = await store.insertMessage([...inboxes.keys()], message, deps.now());
    if (stored.length === 0) {
      throw smtpError(550, '5.1.1 The recipient inboxes were deleted while the message was being sent; nothing was stored');
    }
    if (limits.maxMessagesPerInbox !== null) {
      for (const inboxId of inboxes.keys()) {
        const evicted = await store.evictOldest(inboxId, limits.maxMessagesPerInbox);
        if (evicted > 0) logger.info({ inboxId, evicted }, 'smtp: oldest messages evicted (messages per inbox limit)');
      }
    }
    // Committed: from here on nothing may turn the 250 into a failure.
    for (const record of stored) {
      try {
        bus.publish({ type: 'message', inboxId: record.inboxId, message: record });
      } catch (error) {
        logger.error({ err: error, messageId: record.id }, 'smtp: publishing the message event failed');
      }
      const forwardTo = inboxes.get(record.inboxId)?.forwardTo;
      if (forwardTo && deps.forwarder) {
        deps.forwarder.enqueue({ messageId: record.id, inboxId: record.inboxId, to: forwardTo, envelopeFrom, raw: data });
      }
    }
    logger.info({ sessionId: session.id, messageIds: stored.map((s) => s.id), size: data.byteLength }, 'smtp: message stored');
    return `2.0.0 OK: stored as ${stored.map((s) => s.id).join(', ')}`;
  };

  return { findInbox, deliver };
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

  const { findInbox, deliver } = createDelivery(deps, options.parseTimeoutMs ?? 10_000);
  const faultHook = createIntakeFaultHook(deps.faults);

  const serverOptions: SMTPServerOptions = {
    name: options.name ?? 'inboxkit',
    banner: 'inboxkit local SMTP intake',
    size: limits.maxMessageBytes,
    rejectOversized: true,
    maxRecipients: limits.maxRecipients,
    authOptional: true,
    disabledCommands: options.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    hideSTARTTLS: !options.tls,
    hidePIPELINING: false,
    hide8BITMIME: false,
    hideSMTPUTF8: false,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: options.closeTimeoutMs ?? 1000,
    socketTimeout: options.socketTimeoutMs ?? 60_000,
    ...(options.maxConnections ? { maxClients: options.maxConnections } : {}),
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    onConnect(_session, callback) {
      // Synchronous on purpose: with no greeting delay the session is ready in
      // the same turn the socket is accepted.
      callback();
    },
    onMailFrom(_address, _session, callback) {
      callback();
    },
    onRcptTo(address: SMTPServerAddress, session, callback) {
      findInbox(address.address).then(
        async (inbox) =>
          callback(
            inbox
              ? await faultHook.atRecipient(inbox.id, session.envelope)
              : smtpError(550, `5.1.1 <${address.address}>: no active inbox with this address; create it first (POST /api/v1/inboxes)`),
          ),
        (error: unknown) => {
          logger.error({ err: error }, 'smtp: recipient lookup failed');
          callback(smtpError(451, '4.3.0 Temporary failure looking up the recipient, try again'));
        },
      );
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const chunks: Buffer[] = [];
      let length = 0;
      stream.on('data', (chunk: Buffer) => {
        // Past the limit nothing more is kept; smtp-server answers 552.
        if (stream.sizeExceeded || length + chunk.length > limits.maxMessageBytes) return;
        chunks.push(chunk);
        length += chunk.length;
      });
      stream.on('error', (error) => {
        logger.warn({ err: error, sessionId: session.id }, 'smtp: data stream failed');
      });
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(smtpError(552, `5.3.4 Message exceeds the size limit of ${limits.maxMessageBytes} bytes`));
          return;
        }
        const job = faultHook.beforeAccept(session.envelope).then(() => deliver(Buffer.concat(chunks, length), session)).then(
          (reply) => callback(null, reply),
          (error: unknown) => {
            if (error instanceof Error && 'responseCode' in error) {
              callback(error);
              return;
            }
            logger.error({ err: error, sessionId: session.id }, 'smtp: storing the message failed');
            callback(smtpError(451, '4.3.0 The message could not be stored, try again later'));
          },
        );
        inFlight.add(job);
        void job.finally(() => inFlight.delete(job));
      });
    },
  };

  const server = new PromptSmtpServer(serverOptions, options.greetingDelayMs ?? 0, options.socketTimeoutMs ?? 60_000);
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
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.allSettled([...inFlight]);
      })();
      return closing;
    },
  };
}
