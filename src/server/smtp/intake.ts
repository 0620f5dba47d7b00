import type { ServerContext } from '../context/context.ts';
import { createForwarder } from '../forward/forwarder.ts';
import { createMailPool } from '../mail/pool.ts';
import type { ForwarderOptions } from '../forward/forwarder.ts';
import { createSmtpIntake } from './listener.ts';
import type { IntakeOptions, SmtpIntake } from './listener.ts';

export type { SmtpIntake, IntakeOptions, IntakeDeps, IntakeLimits } from './listener.ts';
export { createSmtpIntake } from './listener.ts';

/** Options of {@link startSmtpIntake}: where to listen, plus tuning with defaults. */
export interface StartSmtpIntakeOptions extends IntakeOptions {
  /**
   * Retry schedule of forwarding (used only when the config has a relay URL); each field replaces the config's.
   * @defaultValue `ctx.config.forwarding`
   */
  forwarding?: Omit<ForwarderOptions, 'relayUrl' | 'logger'>;
}

/**
 * Starts the SMTP intake of a server context: limits from `ctx.config`
 * (`maxMessageBytes`, `maxRecipients`, `maxMessagesPerInbox`), and forwarding
 * through `ctx.config.relayUrl` when one is configured, on `ctx.config.forwarding`'s
 * retry schedule. Listener options (TLS, timeouts, connection cap) come from `opts`. `close()` stops the
 * listener, waits for in-flight deliveries, then stops the forwarder and the mail pool.
 *
 * Messages of 512 KiB and more are parsed and sanitized in one worker thread
 * (`createMailPool`, started on the first such message), so that a large
 * attachment does not hold up other deliveries, streams and requests (an
 * email with a 1 MB attachment takes 10–30 ms of CPU to prepare). Smaller ones are
 * prepared on the event loop: on two cores the hand-off (copying the source
 * over and the parts back) cost more than it saved — with 150 KB emails the
 * worker took 5.3–6.7 ms of CPU per message, the event loop 4.1–5.5 ms, at
 * the same or better throughput (`npm run bench -- --only intake`).
 *
 * @example
 * ```ts
 * const smtp = await startSmtpIntake(ctx, { host: '127.0.0.1', port: 0 });
 * console.log(`SMTP on ${smtp.port}`);
 * await smtp.close();
 * ```
 */
export async function startSmtpIntake(ctx: ServerContext, opts: StartSmtpIntakeOptions): Promise<SmtpIntake> {
  const logger = ctx.logger.child({ component: 'smtp' });
  const forwarder = ctx.config.relayUrl
    ? createForwarder({ ...ctx.config.forwarding, ...opts.forwarding, relayUrl: ctx.config.relayUrl, logger: ctx.logger.child({ component: 'forward' }) })
    : null;
  const pool = createMailPool({ threads: 1, minBytes: 512 * 1024 });
  let intake: SmtpIntake;
  try {
    intake = await createSmtpIntake(
      {
        store: ctx.store,
        bus: ctx.bus,
        logger,
        now: () => ctx.now(),
        limits: {
          maxMessageBytes: ctx.config.maxMessageBytes,
          maxRecipients: ctx.config.maxRecipients,
          maxMessagesPerInbox: ctx.config.maxMessagesPerInbox,
          maxStoredBytes: ctx.config.bounds.maxStoredBytes,
        },
        forwarder,
        faults: ctx.faults,
        prepare: (raw, options) => pool.prepare(raw, options),
      },
      opts,
    );
  } catch (error) {
    await forwarder?.close();
    await pool.close();
    throw error;
  }
  return {
    port: intake.port,
    drain: (graceMs) => intake.drain(graceMs),
    openSessions: () => intake.openSessions(),
    cut: () => intake.cut(),
    async close() {
      await intake.close();
      await forwarder?.close();
      await pool.close();
    },
  };
}
