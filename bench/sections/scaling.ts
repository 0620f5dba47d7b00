/**
 * Scaling: first-page latency of `GET /inboxes/{id}/messages` with 10, 10k and
 * 100k messages in the inbox (filled through the Store API, measured over
 * HTTP), RSS after 100k messages in memory and in file mode, and startup time
 * of the command line to a healthy service (inboxkit and MailDev).
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startInboxkit } from '../lib/hosts.ts';
import type { Host } from '../lib/hosts.ts';
import type { InboxkitHostReady } from '../hosts/inboxkit.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** First-page latency and memory with `messages` in one inbox. */
export interface ScalingResult {
  messages: number;
  /**
   * `file, restarted`: a new server process on the file the previous row filled.
   * A mode ending in `, --max-semi-space-size=4` ran Node with that flag (V8's
   * young generation capped at 4 MB a half), as an operator may with NODE_OPTIONS.
   */
  mode: string;
  /** Time to fill the store through the Store API (not an SMTP figure). */
  fillSeconds: number;
  firstPage: LatencySummary;
  /** RSS after the fill and the measured requests, then after a full GC, MB. */
  rssMb: number;
  rssAfterGcMb: number;
  heapAfterGcMb: number;
  /** The rest of the breakdown after the GC: V8 heap reserved (young generation included) and memory of C++ objects bound to JS, MB. */
  heapTotalAfterGcMb: number;
  externalAfterGcMb: number;
}

/** Measures `requests` first-page reads after 20 unmeasured ones. */
async function firstPage(apiUrl: string, inboxId: string, token: string, requests: number): Promise<LatencySummary> {
  const samples: number[] = [];
  for (let i = -20; i < requests; i++) {
    const t0 = performance.now();
    const response = await fetch(`${apiUrl}/inboxes/${inboxId}/messages`, { headers: { 'x-inbox-token': token } });
    const body = (await response.json()) as { data?: { items?: unknown[] } };
    const elapsed = performance.now() - t0;
    if (!response.ok || !body.data?.items?.length) throw new Error(`bench: first page answered ${response.status}`);
    if (i >= 0) samples.push(elapsed);
  }
  return summarize(samples);
}

/** Runs the scaling measurements for each size in `sizes`, plus file mode at the largest. */
export async function runScaling(options: { sizes: number[]; requests: number; build: string | null; log: (line: string) => void }): Promise<ScalingResult[]> {
  const results: ScalingResult[] = [];
  // tmpfs where there is one: the fill then costs no fsync per message (the
  // server runs with synchronous=FULL all the same; only the fill gets faster).
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const largest = Math.max(...options.sizes);
  const SEMI_SPACE = '--max-semi-space-size=4';
  const runs: Array<{ messages: number; mode: 'memory' | 'file'; flags: string[] }> = [
    ...options.sizes.map((messages) => ({ messages, mode: 'memory' as const, flags: [] })),
    { messages: largest, mode: 'file', flags: [] },
    { messages: largest, mode: 'file', flags: [SEMI_SPACE] },
  ];
  const measure = async (messages: number, mode: ScalingResult['mode'], host: Host<InboxkitHostReady>): Promise<ScalingResult> => {
    const filled = host.ready.filled;
    if (!filled) throw new Error('bench: the host did not fill the inbox');
    const latency = await firstPage(host.ready.apiUrl, filled.inboxId, filled.token, options.requests);
    const raw = await host.stats(false);
    const gc = await host.stats(true);
    const mb = (bytes: number | undefined) => (bytes ?? Number.NaN) / 1e6;
    options.log(
      `scaling: ${messages} messages, ${mode}: RSS ${mb(gc.rss).toFixed(1)} MB after GC = V8 heap ${mb(gc.heapTotal).toFixed(1)} reserved (${mb(gc.heapUsed).toFixed(1)} used)` +
        ` + external ${mb(gc.external).toFixed(1)} + the rest (code, malloc, SQLite)`,
    );
    return {
      messages,
      mode,
      fillSeconds: filled.ms / 1000,
      firstPage: latency,
      rssMb: raw.rss / 1e6,
      rssAfterGcMb: gc.rss / 1e6,
      heapAfterGcMb: gc.heapUsed / 1e6,
      heapTotalAfterGcMb: mb(gc.heapTotal),
      externalAfterGcMb: mb(gc.external),
    };
  };
  for (const run of runs) {
    const suffix = run.flags.map((flag) => `, ${flag}`).join('');
    const hostOptions = { execArgv: run.flags };
    options.log(`scaling: ${run.messages} messages, ${run.mode}${suffix}`);
    const dir = run.mode === 'file' ? mkdtempSync(join(base, 'inboxkit-bench-')) : null;
    const dbPath = dir ? join(dir, 'inboxkit.db') : null;
    try {
      const host = await startInboxkit({ build: options.build, dbPath, fill: run.messages }, hostOptions);
      const filled = host.ready.filled;
      try {
        results.push(await measure(run.messages, `${run.mode}${suffix}`, host));
      } finally {
        await host.stop();
      }
      if (dbPath && filled) {
        // The same file served by a fresh process: memory without the fill's own garbage.
        options.log(`scaling: ${run.messages} messages, file, restarted${suffix}`);
        const again = await startInboxkit({ build: options.build, dbPath, reopen: { inboxId: filled.inboxId, token: filled.token, count: filled.count } }, hostOptions);
        try {
          results.push(await measure(run.messages, `file, restarted${suffix}`, again));
        } finally {
          await again.stop();
        }
      }
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }
  return results;
}

/** Startup of one command: spawn → the ready line, and → the health check answering. */
export interface StartupResult {
  target: string;
  command: string;
  /** Spawn → the machine-readable ready line (inboxkit) or the URL line (MailDev). */
  ready: LatencySummary;
  /** Spawn → the first 200 from the health endpoint. */
  healthy: LatencySummary;
  /** CPU time the process had used when it printed the ready line (Linux; 10 ms resolution), ms. */
  cpuAtReady: LatencySummary;
}

/** CPU time (user + system) a process has used, from /proc (NaN elsewhere), ms. */
function cpuOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command name; clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Spawns `args`, waits for `readyLine` on stdout (which must give the base URL), then polls `healthPath`. */
async function startOnce(args: string[], readyLine: RegExp, healthPath: string): Promise<{ ready: number; healthy: number; cpu: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: fileURLToPath(new URL('../..', import.meta.url)) });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const { url, ready, cpu } = await new Promise<{ url: string; ready: number; cpu: number }>((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => reject(new Error(`bench: ${args.join(' ')} printed no ready line within 30 s:\n${out}${err}`)), 30_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = readyLine.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve({ url: match[1] as string, ready: performance.now() - t0, cpu: cpuOf(child.pid) });
        }
      });
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`bench: ${args.join(' ')} exited with ${code}:\n${out}${err}`)));
    });
    for (;;) {
      try {
        const response = await fetch(`${url}${healthPath}`);
        if (response.ok) {
          await response.arrayBuffer();
          return { ready, healthy: performance.now() - t0, cpu };
        }
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(kill);
  }
}

/** A port that was free a moment ago (MailDev's command line refuses port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Startup of `inboxkit serve` (compiled and from source) and of `maildev`, `runs` times each. */
export async function runStartup(options: { runs: number; build: string | null; log: (line: string) => void }): Promise<StartupResult[]> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const inboxkitReady = /INBOXKIT_READY \{"url":"([^"]+)"/;
  const commands = [
    ...(options.build
      ? [{ target: 'inboxkit', command: 'inboxkit serve (compiled)', args: [join(options.build, 'cli/main.js'), 'serve', '--port', '0', '--smtp-port', '0'], ready: inboxkitReady, health: '/healthz' }]
      : []),
    { target: 'inboxkit', command: 'node src/cli/main.ts serve', args: ['src/cli/main.ts', 'serve', '--port', '0', '--smtp-port', '0'], ready: inboxkitReady, health: '/healthz' },
    ...(existsSync(join(root, 'node_modules/maildev/dist/bin/maildev.js'))
      ? [{
        target: 'maildev', command: 'maildev',
        args: ['node_modules/maildev/dist/bin/maildev.js', '--smtp', String(await freePort()), '--web', String(await freePort()), '--ip', '127.0.0.1', '--web-ip', '127.0.0.1', '--mail-directory', join(tmpdir(), `inboxkit-bench-maildev-startup-${process.pid}`)],
        ready: /API running at (http:\/\/[^\s/]+)/, health: '/api/healthz',
      }]
      : []),
  ];
  const results: StartupResult[] = [];
  for (const c of commands) {
    options.log(`startup: ${c.command}`);
    const readies: number[] = [];
    const healthies: number[] = [];
    const cpus: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const { ready, healthy, cpu } = await startOnce(c.args, c.ready, c.health);
      readies.push(ready);
      healthies.push(healthy);
      cpus.push(cpu);
    }
    results.push({ target: c.target, command: c.command, ready: summarize(readies), healthy: summarize(healthies), cpuAtReady: summarize(cpus) });
  }
  rmSync(join(tmpdir(), `inboxkit-bench-maildev-startup-${process.pid}`), { recursive: true, force: true });
  return results;
}
