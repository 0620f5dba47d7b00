/**
 * The queue in front of the spam scanner: never more checks in flight than the
 * scanner serves at once (spamd runs 5 children by default and makes a sixth
 * connection wait in its own backlog, where no one is fair), the others
 * waiting here, each caller in its own line. When a check ends, the next one
 * sent is the first waiting check of the caller with the fewest checks in
 * flight, ties going round robin (to the caller served longest ago): so a
 * caller with nothing in flight waits at most for one running check to end,
 * however many checks another caller keeps queued.
 *
 * What a caller may queue is bounded before it gets here (the route's fair
 * shares), and so is the total ({@link FairQueueOptions.maxQueued}).
 *
 * @packageDocumentation
 */

/** Options of {@link createFairQueue}. */
export interface FairQueueOptions {
  /** Checks in flight at once. */
  maxInFlight: number;
  /** Checks in flight and waiting together; past it `run` rejects with `onFull()`'s error. */
  maxQueued: number;
  /** The error of a full queue. */
  onFull: () => Error;
}

/** A fair queue of asynchronous tasks. */
export interface FairQueue {
  /** Runs `task` for `caller` when its turn comes; settles as the task does. */
  run<T>(caller: string, task: () => Promise<T>): Promise<T>;
  /** Tasks in flight now. */
  inFlight(): number;
  /** Tasks waiting now. */
  waiting(): number;
}

interface Waiting {
  start: () => void;
}

/**
 * Creates a fair queue.
 *
 * @example
 * ```ts
 * const queue = createFairQueue({ maxInFlight: 5, maxQueued: 16, onFull: () => new Error('busy') });
 * const scan = await queue.run(`addr:${address}`, () => spamdCheck(target, raw));
 * ```
 */
export function createFairQueue(options: FairQueueOptions): FairQueue {
  /** Each caller's waiting tasks, in order. */
  const lines = new Map<string, Waiting[]>();
  const running = new Map<string, number>();
  /** When each caller with tasks held was last served (a serial number): the round robin. */
  const served = new Map<string, number>();
  let serial = 0;
  let inFlight = 0;
  let waiting = 0;

  const bump = (caller: string, by: number): void => {
    const n = (running.get(caller) ?? 0) + by;
    if (n <= 0) running.delete(caller);
    else running.set(caller, n);
  };

  /** The waiting caller with the fewest tasks in flight; among equals, the one served longest ago (never, first). */
  const nextCaller = (): string | null => {
    let best: string | null = null;
    let fewest = Number.POSITIVE_INFINITY;
    let oldest = Number.POSITIVE_INFINITY;
    for (const caller of lines.keys()) {
      const n = running.get(caller) ?? 0;
      const last = served.get(caller) ?? -1;
      if (n < fewest || (n === fewest && last < oldest)) {
        best = caller;
        fewest = n;
        oldest = last;
      }
    }
    return best;
  };

  const dispatch = (): void => {
    while (inFlight < options.maxInFlight) {
      const caller = nextCaller();
      if (caller === null) return;
      const line = lines.get(caller) ?? [];
      const next = line.shift();
      if (line.length === 0) lines.delete(caller);
      if (!next) continue;
      served.set(caller, serial++);
      waiting--;
      next.start();
    }
  };

  return {
    run(caller, task) {
      if (inFlight + waiting >= options.maxQueued) return Promise.reject(options.onFull());
      return new Promise((resolve, reject) => {
        const start = () => {
          inFlight++;
          bump(caller, 1);
          let done: Promise<unknown>;
          try {
            done = task().then(resolve, reject);
          } catch (error) {
            reject(error);
            done = Promise.resolve();
          }
          void done.finally(() => {
            inFlight--;
            bump(caller, -1);
            if (!running.has(caller) && !lines.has(caller)) served.delete(caller);
            dispatch();
          });
        };
        const line = lines.get(caller);
        if (line) line.push({ start });
        else lines.set(caller, [{ start }]);
        waiting++;
        dispatch();
      });
    },
    inFlight: () => inFlight,
    waiting: () => waiting,
  };
}
