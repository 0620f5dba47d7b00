import Tinypool from 'tinypool';
import { fallbackParse } from './parse.ts';
import { prepareMessage, type PrepareOptions, type PreparedMessage } from './prepare.ts';
import type { PrepareJob, PrepareJobResult } from './prepare-worker.ts';

/** Options of {@link createMailPool}. */
export interface MailPoolOptions {
  /**
   * Worker threads kept for large messages.
   * @defaultValue 1 (the other core runs the event loop: SMTP, HTTP, SQLite)
   */
  threads?: number;
  /**
   * Raw messages smaller than this many bytes are prepared on the calling
   * thread: for them the hand-off costs more than it saves.
   * @defaultValue 65_536
   */
  minBytes?: number;
}

/**
 * Prepares messages ({@link prepareMessage}), the large ones in worker
 * threads so that parsing a big attachment does not hold up the event loop.
 * Owned by whoever creates it: {@link MailPool.close} ends its workers.
 */
export interface MailPool {
  /**
   * The prepared message. Like {@link prepareMessage}, never rejects for a bad
   * message; a worker that dies gives the fallback reading, with the reason.
   * @throws Error when the pool was closed.
   */
  prepare(raw: Uint8Array, options: PrepareOptions): Promise<PreparedMessage>;
  /** Ends the workers; messages in progress finish first. Later calls to `prepare` reject. */
  close(): Promise<void>;
}

/** The worker module beside this one: TypeScript when run from source, JavaScript once built. */
function workerFile(): string {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`./prepare-worker.${extension}`, import.meta.url).href;
}

/**
 * Creates a pool of worker threads for preparing large messages (tinypool).
 * Threads start on the first large message, not before.
 *
 * @example
 * const pool = createMailPool({ threads: 1 });
 * const { message, sanitizedHtml } = await pool.prepare(raw, { envelopeFrom });
 * await pool.close();
 */
export function createMailPool(options: MailPoolOptions = {}): MailPool {
  const threads = options.threads ?? 1;
  const minBytes = options.minBytes ?? 65_536;
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`inboxkit mail pool: threads must be a whole number of at least 1, got ${threads}.`);
  let pool: Tinypool | null = null;
  let closed = false;
  const inFlight = new Set<Promise<unknown>>();

  return {
    async prepare(raw, prepareOptions) {
      if (closed) throw new Error('inboxkit mail pool: prepare() was called after close(); create a new pool with createMailPool().');
      if (raw.byteLength < minBytes) return prepareMessage(raw, prepareOptions);
      pool ??= new Tinypool({ filename: workerFile(), minThreads: 0, maxThreads: threads, isolateWorkers: false, idleTimeout: 30_000 });
      const job: PrepareJob = { raw, options: prepareOptions };
      const run = pool.run(job) as Promise<PrepareJobResult>;
      inFlight.add(run);
      try {
        const result = await run;
        return { ...result, message: { ...result.message, raw } };
      } catch (error) {
        const reason = `the worker failed: ${error instanceof Error ? error.message : String(error)}`;
        return { message: { ...fallbackParse(raw, prepareOptions.envelopeFrom), sanitizedHtml: null }, sanitizedHtml: null, fallbackReason: reason };
      } finally {
        inFlight.delete(run);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...inFlight]);
      await pool?.destroy();
      pool = null;
    },
  };
}
