/**
 * The SMTP intake of a server context: the listener (`listener.ts`) over the
 * context's one intake, which every channel shares.
 *
 * @packageDocumentation
 */
import type { ServerContext } from '../context/context.ts';
import { createSmtpIntake } from './listener.ts';
import type { IntakeOptions, SmtpIntake } from './listener.ts';

export type { SmtpIntake, IntakeOptions, IntakeDeps, IntakeLimits } from './listener.ts';
export { createSmtpIntake } from './listener.ts';

/** Options of {@link startSmtpIntake}: where to listen, plus tuning with defaults. */
export type StartSmtpIntakeOptions = IntakeOptions;

/**
 * Starts the SMTP intake of a server context: limits from `ctx.config`
 * (`maxMessageBytes`, `maxRecipients`), and the context's intake, which
 * stores (within `maxMessagesPerInbox` and the stored-bytes cap), publishes
 * and forwards. Listener options (TLS, timeouts, connection cap) come from
 * `opts`. `close()` stops the listener and waits for in-flight deliveries;
 * the context's owner closes the intake and its parts.
 *
 * @example
 * ```ts
 * const smtp = await startSmtpIntake(ctx, { host: '127.0.0.1', port: 0 });
 * console.log(`SMTP on ${smtp.port}`);
 * await smtp.close();
 * ```
 */
export function startSmtpIntake(ctx: ServerContext, opts: StartSmtpIntakeOptions): Promise<SmtpIntake> {
  return createSmtpIntake(
    {
      store: ctx.store,
      bus: ctx.bus,
      logger: ctx.logger.child({ component: 'smtp' }),
      now: () => ctx.now(),
      limits: {
        maxMessageBytes: ctx.config.maxMessageBytes,
        maxRecipients: ctx.config.maxRecipients,
        maxMessagesPerInbox: ctx.config.maxMessagesPerInbox,
        maxStoredBytes: ctx.config.bounds.maxStoredBytes,
      },
      forwarder: null,
      faults: ctx.faults,
      intake: ctx.intake,
    },
    opts,
  );
}
