/**
 * Starting and stopping the servers under test, each in its own child process.
 *
 * @packageDocumentation
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { InboxkitHostConfig, InboxkitHostReady } from '../hosts/inboxkit.ts';
import type { MaildevHostReady } from '../hosts/maildev.ts';

/** A server running in a child process. */
export interface Host<Ready> {
  ready: Ready;
  pid: number;
  /** RSS and heap of the child (after a full GC when `gc` is true), and the CPU time it has used. */
  stats(gc?: boolean): Promise<HostStats>;
  /** Stops the server and waits for the process to end (killed after 5 s). */
  stop(): Promise<void>;
}

/** What a host reports about itself. */
export interface HostStats {
  /** Resident set size, bytes. */
  rss: number;
  /** V8 heap in use, bytes. */
  heapUsed: number;
  /** V8 heap reserved, bytes (inboxkit host only). */
  heapTotal?: number;
  /** Memory of C++ objects bound to JS (Buffers, SQLite), bytes (inboxkit host only). */
  external?: number;
  /** CPU time used so far (user + system), ms. */
  cpuMs: number;
}

const READY_TIMEOUT_MS = 120_000;

/** How a host process runs. */
export interface HostOptions {
  /** Write a V8 CPU profile of the server process into this folder when it stops. */
  cpuProfileDir?: string;
  /** More Node flags for the server process (e.g. `--max-semi-space-size=1`). */
  execArgv?: string[];
}

function startHost<Ready>(script: string, args: string[], options: HostOptions = {}): Promise<Host<Ready>> {
  const profile = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const child: ChildProcess = fork(fileURLToPath(new URL(script, import.meta.url)), args, {
    execArgv: ['--expose-gc', '--no-warnings', ...profile, ...(options.execArgv ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bench: ${script} did not become ready within ${READY_TIMEOUT_MS} ms`));
    }, READY_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bench: ${script} exited with code ${code} before it was ready (see its output above)`));
    });
    child.once('message', (ready: Ready) => {
      clearTimeout(timer);
      resolve({
        ready,
        pid: child.pid as number,
        stats(gc = false) {
          return new Promise((res) => {
            child.once('message', (m: HostStats) => res(m));
            child.send({ type: 'stats', gc });
          });
        },
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
          child.send({ type: 'stop' });
          await exited;
          clearTimeout(kill);
        },
      });
    });
  });
}

/** Starts an inboxkit server in a child process. */
export function startInboxkit(config: InboxkitHostConfig = { dbPath: null }, options?: HostOptions): Promise<Host<InboxkitHostReady>> {
  return startHost('../hosts/inboxkit.ts', [JSON.stringify(config)], options);
}

/** Starts MailDev 3 in a child process. */
export function startMaildev(options?: HostOptions): Promise<Host<MaildevHostReady>> {
  return startHost('../hosts/maildev.ts', [], options);
}
