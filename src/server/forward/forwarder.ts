import type { Transporter } from 'nodemailer';

/** A relay job: one stored copy of a message to pass on. */
export interface ForwardJob {
  messageId: string;
  inboxId: string;
  to: string;
  envelopeFrom: string;
  raw: Uint8Array;
}

/** What the intake hands stored messages to when their inbox forwards; must not block. */
export interface ForwardQueue {
  enqueue(job: ForwardJob): void;
}

/** Sends one message as-is to one recipient; rejects on failure. */
export type RelaySend = (job: { from: string; to: string; raw: Uint8Array }) => Promise<void>;

/** The logging the forwarder needs (a pino logger fits). */
export interface ForwarderLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link createForwarder}. */
export interface ForwarderOptions {
  /** The relay, e.g. `smtp://127.0.0.1:2525` (any URL nodemailer's SMTP transport takes). */
  relayUrl: string;
  logger: ForwarderLogger;
  /**
   * Attempts per message, the first included.
   * @defaultValue 5
   */
  attempts?: number;
  /**
   * Delay before the first retry; doubled after each failure, with jitter.
   * @defaultValue 1000
   */
  baseDelayMs?: number;
  /**
   * Upper bound of a retry delay.
   * @defaultValue 60_000
   */
  maxDelayMs?: number;
  /**
   * How messages reach the relay; replaces the nodemailer transport (tests inject failures here).
   * @defaultValue a nodemailer SMTP transport on `relayUrl`
   */
  send?: RelaySend;
  /** Random number in [0, 1) for jitter. @defaultValue Math.random */
  random?: () => number;
  /**
   * How long `close()` waits for relay attempts under way before it lets them go.
   * @defaultValue 2000
   */
  closeTimeoutMs?: number;
}

/** A running forwarder: a queue that never blocks the caller. */
export interface Forwarder extends ForwardQueue {
  /** Cancels pending retries, waits (bounded) for sends under way, closes the transport. */
  close(): Promise<void>;
}

/**
 * The delay before retry number `retry` (1-based): exponential from `baseDelayMs`,
 * capped at `maxDelayMs`, with "equal jitter" (between half and all of it).
 */
export function retryDelay(retry: number, baseDelayMs: number, maxDelayMs: number, random: () => number): number {
  const exponential = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random());
}

/**
 * Creates the forwarder: each enqueued message is relayed as-is (its raw
 * source, envelope recipient = the inbox's `forwardTo`) through the relay.
 * Failures are retried with bounded exponential backoff and logged; the last
 * failure is logged as an error and the message is dropped from the queue
 * (it stays in the inbox).
 *
 * @example
 * ```ts
 * const forwarder = createForwarder({ relayUrl: 'smtp://127.0.0.1:2525', logger });
 * forwarder.enqueue({ messageId, inboxId, to: 'me@example.com', envelopeFrom: 'app@example.com', raw });
 * await forwarder.close();
 * ```
 */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const attempts = Math.max(1, options.attempts ?? 5);
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const random = options.random ?? Math.random;
  const { logger } = options;

  // nodemailer loads with the first message to forward, so that a service that forwards nothing does not load it.
  let transport: Promise<Transporter> | null = null;
  const send: RelaySend =
    options.send ??
    (async ({ from, to, raw }) => {
      transport ??= import('nodemailer').then(({ default: nodemailer }) =>
        nodemailer.createTransport({
          url: options.relayUrl,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 60_000,
        } as Parameters<typeof nodemailer.createTransport>[0]),
      );
      await (await transport).sendMail({ envelope: { from, to: [to] }, raw: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) });
    });

  const timers = new Set<ReturnType<typeof setTimeout>>();
  const sending = new Set<Promise<void>>();
  let closed = false;

  const attempt = (job: ForwardJob, number: number): void => {
    if (closed) return;
    const run = send({ from: job.envelopeFrom, to: job.to, raw: job.raw }).then(
      () => {
        logger.info({ messageId: job.messageId, inboxId: job.inboxId, to: job.to, attempt: number }, 'forward: message relayed');
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (number >= attempts || closed) {
          logger.error(
            { messageId: job.messageId, inboxId: job.inboxId, to: job.to, attempts: number, err: error },
            `forward: giving up relaying message ${job.messageId} to ${job.to} through ${options.relayUrl} after ${number} attempt(s): ${reason}. Check that the relay is reachable; the message stays in its inbox.`,
          );
          return;
        }
        const delay = retryDelay(number, baseDelayMs, maxDelayMs, random);
        logger.warn(
          { messageId: job.messageId, to: job.to, attempt: number, retryInMs: delay, err: error },
          `forward: relaying message ${job.messageId} to ${job.to} failed (${reason}); retrying in ${delay} ms`,
        );
        const timer = setTimeout(() => {
          timers.delete(timer);
          attempt(job, number + 1);
        }, delay);
        timer.unref();
        timers.add(timer);
      },
    );
    sending.add(run);
    void run.finally(() => sending.delete(run));
  };

  return {
    enqueue(job) {
      // Started on a later turn, so that the SMTP reply never waits on the relay.
      setImmediate(() => attempt(job, 1));
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...sending]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, options.closeTimeoutMs ?? 2000);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
      // A transport that failed to load has nothing to close.
      if (transport) (await transport.catch(() => null))?.close();
    },
  };
}
