import type { ServerContext } from '../context/context.ts';
import { createForwarder } from '../forward/forwarder.ts';
import type { ForwarderOptions } from '../forward/forwarder.ts';
import { createSmtpIntake } from './intake-core.ts';
import type { IntakeOptions, SmtpIntake } from './intake-core.ts';

export type { SmtpIntake, IntakeOptions, IntakeDeps, IntakeLimits } from './intake-core.ts';
export { createSmtpIntake } from './intake-core.ts';

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
 * listener, waits for in-flight deliveries, then stops the forwarder.
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
        },
        forwarder,
        faults: ctx.faults,
      },
      opts,
    );
  } catch (error) {
    await forwarder?.close();
    throw error;
  }
  return {
    port: intake.port,
    async close() {
      await intake.close();
      await forwarder?.close();
    },
  };
}
