/**
 * The expiry sweeper. Expired inboxes stop being active the moment they expire
 * (every read checks `expiresAt`); the sweeper then deletes them with their
 * messages and tells their subscribers (`inbox.expired`). With a message
 * retention (`--message-ttl`), it also deletes older mail of inboxes that live on.
 * Both are bounded per sweep (passes of `--sweep-batch` inboxes, at most 10)
 * and shared out fairly: the store takes each owner's oldest first, round by
 * round, so one guest's thousand expired inboxes delay no one else's.
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

/** Passes one sweep makes, each of at most `bounds.sweepBatch` inboxes; the rest waits for the next sweep. */
const SWEEP_PASSES = 10;

/** Told what each sweep did (the metrics). */
export interface SweepObserver {
  /** A sweep ended: the expired inboxes it deleted, the messages past their retention it deleted, and how long it took. */
  swept(expiredInboxes: number, retainedMessages: number, seconds: number): void;
}

/**
 * Deletes expired inboxes in passes of `batch` (each its own transaction),
 * fairly between owners and oldest first (the store chooses); resolves with
 * every id deleted, in that order.
 */
async function sweepExpiredInboxes(ctx: ServerContext, now: number, batch: number): Promise<string[]> {
  const ids: string[] = [];
  for (let pass = 0; pass < SWEEP_PASSES; pass++) {
    const gone = await ctx.store.sweepExpired(now, batch);
    ids.push(...gone);
    if (gone.length < batch) break;
  }
  return ids;
}

/** Deletes the mail received before `cutoff` (`--message-ttl`), in bounded passes of `batch` inboxes; resolves with how many messages. */
async function sweepOldMail(ctx: ServerContext, cutoff: number, batch: number): Promise<number> {
  let deleted = 0;
  for (let pass = 0; pass < SWEEP_PASSES; pass++) {
    const gone = await ctx.store.sweepOldMessages(cutoff, batch);
    deleted += gone;
    if (gone === 0) break;
  }
  if (deleted > 0) ctx.logger.info({ count: deleted }, 'deleted mail past its retention (--message-ttl)');
  return deleted;
}

/**
 * Starts sweeping every `ctx.config.sweepIntervalMs`. The timer is unref'd, so
 * it never keeps the process alive on its own.
 */
export function startSweeper(ctx: ServerContext, observer?: SweepObserver): Sweeper {
  let running: Promise<string[]> | null = null;

  const sweep = (): Promise<string[]> => {
    running ??= (async () => {
      try {
        const began = performance.now();
        const now = ctx.now();
        const batch = ctx.config.bounds.sweepBatch;
        const ids = await sweepExpiredInboxes(ctx, now, batch);
        for (const inboxId of ids) ctx.bus.publish({ type: 'inbox.expired', inboxId });
        if (ids.length > 0) ctx.logger.info({ count: ids.length }, 'swept expired inboxes');
        const ttl = ctx.config.operations.messageTtlSeconds;
        const retained = ttl === null ? 0 : await sweepOldMail(ctx, now - ttl * 1000, batch);
        observer?.swept(ids.length, retained, (performance.now() - began) / 1000);
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
