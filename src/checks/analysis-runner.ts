/**
 * {@link createAnalysisRunner}: analyses of untrusted mail run where they can
 * be stopped. Each job runs in a worker thread with a heap bound
 * (`resourceLimits`), and is ended by `terminate()` when its time is up — a
 * timer on the main thread that waits for a busy loop could not fire — so no
 * email can hold the service's event loop. At most `concurrency` workers run
 * at once, and at most `queue` jobs wait; more are refused at once. Every
 * refusal names the bound that was hit.
 *
 * A worker that answered is kept, idle, for the next job (at most
 * `concurrency` of them, each for `idleMs` and at most
 * {@link JOBS_PER_WORKER} jobs): starting a thread, and compiling its code,
 * costs more than most analyses. A worker that was stopped by a bound, or
 * failed, is never reused.
 *
 * @packageDocumentation
 */
import { Worker } from 'node:worker_threads';
import { InboxkitError } from '../errors/inboxkit-error.ts';
import type { AuthenticationCheck } from '../wire/authentication-check.ts';
import type { ExtractedLink, ExtractSource, LinkFilter, OtpCandidate, OtpOptions, RejectedOtp } from '../extract/index.ts';
import type { AuthenticationInput } from './authentication.ts';
import type { CompatibilityReport } from './compatibility.ts';
import type { ContentCheckOptions, ContentFinding } from './content-checks.ts';
import type { CheckableImage } from './link-check.ts';

/** One job of the runner: what it analyses and how. */
export type AnalysisJob =
  | { kind: 'authentication'; input: AuthenticationInput }
  | { kind: 'extract'; source: ExtractSource; otp?: OtpOptions; links?: Pick<LinkFilter, 'text' | 'href'>; images?: boolean }
  | { kind: 'content'; raw: Uint8Array; options?: Pick<ContentCheckOptions, 'bulk'> }
  | { kind: 'compatibility'; raw: Uint8Array | null; sanitized: string | null; clients: string[] };

/** What each kind of job answers. */
export interface AnalysisResults {
  authentication: AuthenticationCheck;
  extract: { links: ExtractedLink[]; matched: ExtractedLink[] | null; otps: { candidates: OtpCandidate[]; rejected: RejectedOtp[] }; images: CheckableImage[] | null; bounds: string[] };
  content: ContentFinding[];
  compatibility: CompatibilityReport;
}

/** The bound an analysis hit: its time, its heap, or the runner's workers and queue. */
export type AnalysisBound = 'time' | 'memory' | 'busy';

/** An analysis that was stopped or refused by a bound; `bound` says which, the message says what to do. */
export class AnalysisBoundError extends InboxkitError {
  override name = 'AnalysisBoundError';
  /** Which bound was hit. */
  readonly bound: AnalysisBound;
  constructor(bound: AnalysisBound, message: string) {
    super(message);
    this.bound = bound;
  }
}

/** An analysis that failed inside its worker: the worker's error, by name, message and kind. */
export class AnalysisFailedError extends InboxkitError {
  override name: string;
  /** The `kind` of the worker's error, where it had one (e.g. an authentication check's `unavailable`). */
  readonly kind: unknown;
  constructor(name: string, message: string, kind: unknown) {
    super(message);
    this.name = name;
    this.kind = kind;
  }
}

/** Options of {@link createAnalysisRunner}. */
export interface AnalysisRunnerOptions {
  /**
   * Longest one job may run, in milliseconds, waiting for a worker included.
   * @defaultValue 10_000
   */
  timeoutMs?: number;
  /**
   * Heap of one worker, in MiB (its old generation; the young one gets a quarter).
   * @defaultValue 256
   */
  maxMemoryMb?: number;
  /**
   * Workers running at once.
   * @defaultValue 2
   */
  concurrency?: number;
  /**
   * Jobs waiting for a worker; one more is refused (`busy`).
   * @defaultValue 32
   */
  queue?: number;
  /**
   * How long a worker that answered stays, idle, for the next job, in milliseconds.
   * @defaultValue 10_000
   */
  idleMs?: number;
}

/** Jobs one worker runs before it is replaced by a fresh one (its heap starts clean). */
export const JOBS_PER_WORKER = 100;

/** Runs analyses in bounded workers. */
export interface AnalysisRunner {
  /**
   * Runs one job in a worker: an idle one, or a new one.
   * @throws AnalysisBoundError naming the bound (time, memory, busy) that stopped or refused it.
   * @throws AnalysisFailedError with the worker's own error (a malformed test DNS, mailauth missing).
   */
  run<K extends AnalysisJob['kind']>(job: Extract<AnalysisJob, { kind: K }>): Promise<AnalysisResults[K]>;
  /** Terminates the running and idle workers and refuses the waiting and later jobs. */
  close(): Promise<void>;
  /** Workers started so far (a new one for each job that found none idle). */
  readonly workersStarted: number;
}

/** The worker module beside this one: TypeScript when run from source, JavaScript once built. */
function workerUrl(): URL {
  return new URL(`./analysis-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
}

/**
 * The runner's threads: {@link WorkerPool.take} gives an idle worker or starts one;
 * {@link WorkerPool.park} keeps one that answered (at most `keep` idle, each for
 * `idleMs`, each for {@link JOBS_PER_WORKER} jobs) or ends it.
 */
interface WorkerPool {
  take(): Worker;
  park(worker: Worker): void;
  /** Forgets the idle workers and hands them over, to be terminated. */
  drain(): Worker[];
  readonly started: number;
}

function workerPool(limits: { maxMemoryMb: number; keep: number; idleMs: number }): WorkerPool {
  /** Workers that answered and wait for a job, with the timer that ends each. */
  const idle = new Map<Worker, ReturnType<typeof setTimeout>>();
  const jobsRun = new WeakMap<Worker, number>();
  let started = 0;
  const start = (): Worker => {
    const worker = new Worker(workerUrl(), { resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb, maxYoungGenerationSizeMb: Math.max(8, Math.floor(limits.maxMemoryMb / 4)) } });
    started++;
    // A worker, running or idle, does not keep a closing process alive.
    worker.unref();
    // An idle worker's failure only ends it (a job's own listeners report the failure of a running one).
    worker.on('error', () => {});
    worker.once('exit', () => {
      clearTimeout(idle.get(worker));
      idle.delete(worker);
    });
    return worker;
  };
  return {
    take() {
      for (const [worker, timer] of idle) {
        clearTimeout(timer);
        idle.delete(worker);
        return worker;
      }
      return start();
    },
    park(worker) {
      const runs = (jobsRun.get(worker) ?? 0) + 1;
      jobsRun.set(worker, runs);
      if (runs >= JOBS_PER_WORKER || idle.size >= limits.keep) {
        void worker.terminate();
        return;
      }
      const timer = setTimeout(() => {
        idle.delete(worker);
        void worker.terminate();
      }, limits.idleMs);
      timer.unref();
      idle.set(worker, timer);
    },
    drain() {
      for (const timer of idle.values()) clearTimeout(timer);
      const workers = [...idle.keys()];
      idle.clear();
      return workers;
    },
    get started() {
      return started;
    },
  };
}

/**
 * Creates a runner. Workers start for a job, not before, and are kept for later
 * jobs while idle (see above); nothing runs between jobs.
 *
 * @example
 * ```ts
 * const runner = createAnalysisRunner({ timeoutMs: 10_000 });
 * const { links, otps } = await runner.run({ kind: 'extract', source: { html, text, subject } });
 * await runner.close();
 * ```
 */
export function createAnalysisRunner(options: AnalysisRunnerOptions = {}): AnalysisRunner {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxMemoryMb = options.maxMemoryMb ?? 256;
  const concurrency = options.concurrency ?? 2;
  const queueBound = options.queue ?? 32;
  const waiting: Array<{ go: () => void; fail: (error: Error) => void }> = [];
  const running = new Set<Worker>();
  let active = 0;
  let closed = false;

  const slot = async (deadline: number): Promise<void> => {
    if (active < concurrency) {
      active++;
      return;
    }
    if (waiting.length >= queueBound) {
      throw new AnalysisBoundError('busy', `analysis: ${concurrency} analyses are running and ${queueBound} are waiting, the bound of this service; try again in a moment.`);
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        go: () => {
          clearTimeout(timer);
          active++;
          resolve();
        },
        fail: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        const index = waiting.indexOf(entry);
        if (index >= 0) waiting.splice(index, 1);
        reject(new AnalysisBoundError('time', `analysis: waited ${timeoutMs} ms for a worker (the time bound) while other analyses ran; try again in a moment.`));
      }, Math.max(0, deadline - Date.now()));
      waiting.push(entry);
    });
  };
  const release = () => {
    active--;
    waiting.shift()?.go();
  };

  const pool = workerPool({ maxMemoryMb, keep: concurrency, idleMs: options.idleMs ?? 10_000 });

  const inWorker = (job: AnalysisJob, deadline: number): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const worker = pool.take();
      running.add(worker);
      let settled = false;
      /** Settles the job; `keep` parks the worker for the next one, otherwise it is terminated. */
      const settle = (keep: boolean, fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        running.delete(worker);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (keep && !closed) pool.park(worker);
        else void worker.terminate();
        fn();
      };
      const stopped = () => new AnalysisBoundError('time', `analysis: the ${job.kind} analysis took longer than ${timeoutMs} ms, the time bound, and was stopped; the mail is too large or too complex to analyse here.`);
      const timer = setTimeout(() => settle(false, () => reject(stopped())), Math.max(0, deadline - Date.now()));
      const onMessage = (answer: { ok: boolean; value?: unknown; error?: { name: string; message: string; kind: unknown } }) => {
        settle(true, () => (answer.ok ? resolve(answer.value) : reject(new AnalysisFailedError(answer.error?.name ?? 'Error', answer.error?.message ?? 'the analysis failed', answer.error?.kind))));
      };
      const onError = (error: Error & { code?: string }) => {
        const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
        settle(false, () => reject(memory ? new AnalysisBoundError('memory', `analysis: the ${job.kind} analysis needed more than ${maxMemoryMb} MiB, the memory bound, and was stopped; the mail is too large or too complex to analyse here.`) : error));
      };
      const onExit = () => settle(false, () => reject(new AnalysisBoundError(closed ? 'busy' : 'memory', closed ? 'analysis: the service is shutting down.' : `analysis: the ${job.kind} analysis's worker ended without an answer (its memory bound is ${maxMemoryMb} MiB).`)));
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage(job);
    });

  return {
    async run(job) {
      if (closed) throw new AnalysisBoundError('busy', 'analysis: the service is shutting down.');
      const deadline = Date.now() + timeoutMs;
      await slot(deadline);
      try {
        return (await inWorker(job, deadline)) as never;
      } finally {
        release();
      }
    },
    async close() {
      closed = true;
      for (const entry of waiting.splice(0)) entry.fail(new AnalysisBoundError('busy', 'analysis: the service is shutting down.'));
      await Promise.all([...running, ...pool.drain()].map((worker) => worker.terminate()));
    },
    get workersStarted() {
      return pool.started;
    },
  };
}
