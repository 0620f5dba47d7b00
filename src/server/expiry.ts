/**
 * The expiry sweeper. Expired inboxes stop being active the moment they expire
 * (every read checks `expiresAt`); the sweeper then deletes them with their
 * messages and tells their subscribers (`inbox.expired`).
 *
 * @packageDocumentation
 */
import type { ServerContext } from './context/context.ts';

/** A running sweeper. */
export interface Sweeper {
  /** Sweeps now; resolves with the ids of the inboxes deleted. */
  sweep(): Promise<string[]>;
  /** Stops the timer (a sweep in progress completes). */
  stop(): void;
}

/**
 * Starts sweeping every `ctx.config.sweepIntervalMs`. The timer is unref'd, so
 * it never keeps the process alive on its own.
 */
export function startSweeper(ctx: ServerContext): Sweeper {
  let running: Promise<string[]> | null = null;

  const sweep = (): Promise<string[]> => {
    running ??= (async () => {
      try {
        const ids = await ctx.store.sweepExpired(ctx.now());
        for (const inboxId of ids) ctx.bus.publish({ type: 'inbox.expired', inboxId });
        if (ids.length > 0) ctx.logger.info({ count: ids.length }, 'swept expired inboxes');
        return ids;
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const timer = setInterval(() => {
    sweep().catch((err: unknown) => ctx.logger.error({ err }, 'sweeping expired inboxes failed'));
  }, ctx.config.sweepIntervalMs);
  timer.unref();

  return {
    sweep,
    stop() {
      clearInterval(timer);
    },
  };
}
