/**
 * The email test suite of the `suite` section (N tests, 4 workers, one email
 * each, `waitForMessage`) run the way a team runs it (issue 40): through
 * Debian's HAProxy, with the guide's configuration (docs/team-service/
 * haproxy.cfg: HTTP, and SMTP with the PROXY protocol), in front of two
 * `inboxkit serve` nodes on one PostgreSQL database; beside the same suite
 * against one such node directly, and one node behind HAProxy (the balancer's
 * own cost, apart from the second node's). The setups alternate, the median
 * run is reported. Before the suites, per event: a stream through each
 * setup, and the time from each message's SMTP send to its event on it.
 *
 * The nodes are the compiled CLI (bench/lib/build.ts), each its own process.
 * PostgreSQL is INBOXKIT_BENCH_POSTGRES_URL when set, otherwise a throwaway
 * cluster of tests/support/postgres.sh. Without HAProxy or PostgreSQL the
 * section is skipped, saying why.
 *
 * @packageDocumentation
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import pg from 'pg';
import type { Host } from '../lib/hosts.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';
import type { InboxkitHostReady } from '../hosts/inboxkit.ts';
import { runSuites } from './suite.ts';
import { freePort } from '../../tests/support/team.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HAPROXY = '/usr/sbin/haproxy';

/** One setup's suite runs. */
export interface BalancerResult {
  setup: string;
  tests: number;
  workers: number;
  passed: number;
  failed: number;
  /** Wall time of the median run, s. */
  seconds: number;
  secondsRuns: number[];
}

/** One setup's event latency: from the SMTP send to the message event on a stream, one message at a time. */
export interface EventLatencyResult {
  setup: string;
  latency: LatencySummary;
}

/** The result of the section: rows, or why there are none. */
export type BalancerOutcome = { rows: BalancerResult[]; events: EventLatencyResult[] } | { skipped: string };

/**
 * Per event: an inbox's stream opened through `http` (a node, or a balancer),
 * then `count` messages sent one at a time straight to a node's SMTP port
 * (from 127.0.0.2, which the nodes do not take for the balancer), each timed
 * from the SMTP send to its `message` event on the stream (the wait a test
 * makes). The mail takes the same path in every setup, so what differs is the
 * event's way out: whatever holds it (a balancer's buffering) shows per event.
 */
export async function eventLatency(http: number, smtp: number, count: number): Promise<LatencySummary> {
  const origin = `http://127.0.0.1:${http}`;
  const created = await fetch(`${origin}/api/v1/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const inbox = ((await created.json()) as { data: { id: string; token: string; address: string } }).data;
  const abort = new AbortController();
  const stream = await fetch(`${origin}/api/v1/inboxes/${inbox.id}/stream`, { headers: { accept: 'text/event-stream', 'x-inbox-token': inbox.token }, signal: abort.signal });
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  /** Resolves at the next `message` event. */
  const nextMessage = async () => {
    for (;;) {
      const at = buffered.indexOf('event: message');
      if (at >= 0) {
        buffered = buffered.slice(at + 'event: message'.length);
        return;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('bench: the stream ended');
      buffered += decoder.decode(value, { stream: true });
    }
  };
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtp, localAddress: '127.0.0.2', secure: false, ignoreTLS: true, pool: false });
  const samples: number[] = [];
  try {
    for (let i = 0; i < count + 3; i++) {
      const began = performance.now();
      const arrived = nextMessage();
      await transport.sendMail({ from: 'bench@app.test', to: inbox.address, subject: `event ${i}`, text: 'x' });
      await arrived;
      // The first messages warm the paths up; they are not counted.
      if (i >= 3) samples.push(performance.now() - began);
    }
  } finally {
    abort.abort();
    transport.close();
  }
  return summarize(samples);
}

/** `inboxkit serve` from the build on fixed ports; resolves once it printed its ready line. */
async function startNode(build: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(build, 'cli/main.js'), 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('INBOXKIT_READY ')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`bench: inboxkit serve exited with ${code} before it was ready:\n${err.slice(-2000)}`)));
  });
  return child;
}

async function stopNode(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 60_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`bench: gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The guide's HAProxy configuration with its placeholders filled. */
function haproxyConfig(httpPort: number, smtpPort: number, statsPort: number, nodes: Array<{ http: number; smtp: number }>): string {
  const values: Record<string, string> = {
    BALANCER_HTTP_PORT: String(httpPort),
    BALANCER_SMTP_PORT: String(smtpPort),
    BALANCER_STATS_PORT: String(statsPort),
    HTTP_SERVERS: nodes.map((n, i) => `    server node${i + 1} 127.0.0.1:${n.http} check`).join('\n'),
    SMTP_SERVERS: nodes.map((n, i) => `    server node${i + 1} 127.0.0.1:${n.smtp} send-proxy check port ${n.http}`).join('\n'),
  };
  return readFileSync(join(ROOT, 'docs/team-service/haproxy.cfg'), 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`bench: docs/team-service/haproxy.cfg has {{${name}}}, which the balancer section does not fill`);
    return value;
  });
}

/** A PostgreSQL database: the bench's own URL, or a throwaway cluster. */
async function database(dir: string, log: (line: string) => void): Promise<{ url: string; stop(): Promise<void> } | string> {
  const given = process.env.INBOXKIT_BENCH_POSTGRES_URL?.trim();
  if (given) return { url: given, stop: async () => {} };
  if (!existsSync('/usr/lib/postgresql')) return 'needs PostgreSQL: set INBOXKIT_BENCH_POSTGRES_URL, or install Debian\'s postgresql for a throwaway cluster';
  log('balancer: starting a throwaway PostgreSQL cluster (tests/support/postgres.sh)');
  const env = { ...process.env, INBOXKIT_PG_STATE: join(dir, 'postgres.env') };
  const script = join(ROOT, 'tests/support/postgres.sh');
  const url = (await run('bash', [script, 'start', String(await freePort())], { env })).stdout.trim();
  return { url, stop: async () => void (await run('bash', [script, 'stop'], { env }).catch(() => undefined)) };
}

/** Empties the service's tables between runs, so every run starts alike. */
async function reset(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("DO $$ BEGIN IF to_regclass('inboxes') IS NOT NULL THEN TRUNCATE inboxes CASCADE; END IF; END $$");
  } finally {
    await client.end();
  }
}

/** Runs the section. */
export async function runBalancer(options: { build: string; tests: number; repetitions: number; events: number; log: (line: string) => void }): Promise<BalancerOutcome> {
  if (!existsSync(HAPROXY)) return { skipped: `needs Debian's HAProxy at ${HAPROXY} (apt-get install haproxy; .ci/run installs it)` };
  const dir = mkdtempSync(join(tmpdir(), 'inboxkit-bench-balancer-'));
  const children: ChildProcess[] = [];
  let db: Awaited<ReturnType<typeof database>> | null = null;
  try {
    db = await database(dir, options.log);
    if (typeof db === 'string') return { skipped: db };
    const nodes = [{ http: await freePort(), smtp: await freePort() }, { http: await freePort(), smtp: await freePort() }];
    const common = ['--db', db.url, '--no-mcp', '--no-operator-token', '--rate-limit', 'off', '--log-level', 'error'];
    for (const node of nodes) {
      children.push(await startNode(options.build, ['--port', String(node.http), '--smtp-port', String(node.smtp), ...common, '--smtp-proxy', '127.0.0.1', '--trust-proxy', '127.0.0.1']));
    }
    const direct = { http: await freePort(), smtp: await freePort() };
    children.push(await startNode(options.build, ['--port', String(direct.http), '--smtp-port', String(direct.smtp), ...common]));

    const balancers: Record<string, { http: number; smtp: number }> = {};
    for (const [name, behind] of [['one', nodes.slice(0, 1)], ['two', nodes]] as const) {
      const ports = { http: await freePort(), smtp: await freePort() };
      writeFileSync(join(dir, `haproxy-${name}.cfg`), haproxyConfig(ports.http, ports.smtp, await freePort(), behind));
      const haproxy = spawn(HAPROXY, ['-db', '-f', join(dir, `haproxy-${name}.cfg`)], { stdio: 'ignore' });
      children.push(haproxy);
      await waitFor(async () => (await fetch(`http://127.0.0.1:${ports.http}/readyz`)).status === 200, `HAProxy (${name}) to see a ready node`);
      balancers[name] = ports;
    }

    const setups: Array<[string, { http: number; smtp: number }]> = [
      ['one node, direct', direct],
      ['HAProxy → one node', balancers.one!],
      ['HAProxy → two nodes', balancers.two!],
    ];
    // Per event first: through HAProxy an event must cost no more than on the node directly.
    // The mail goes to node 1's own SMTP port in each; the stream to node 1, or through HAProxy.
    const events: EventLatencyResult[] = [];
    const eventSetups: Array<[string, number]> = [
      ['node 1, direct', nodes[0]!.http],
      ['HAProxy → node 1', balancers.one!.http],
      ['HAProxy → two nodes', balancers.two!.http],
    ];
    for (const [setup, http] of eventSetups) {
      options.log(`balancer: per-event latency, ${setup}`);
      events.push({ setup, latency: await eventLatency(http, nodes[0]!.smtp, options.events) });
    }
    const runs = new Map<string, Array<{ seconds: number; passed: number; failed: number }>>();
    for (let r = 0; r < options.repetitions; r++) {
      for (const [setup, ports] of setups) {
        await reset(db.url);
        options.log(`balancer: ${setup} (run ${r + 1} of ${options.repetitions})`);
        const host = { ready: { url: `http://127.0.0.1:${ports.http}`, smtpPort: ports.smtp } } as unknown as Host<InboxkitHostReady>;
        const [result] = await runSuites(host, { tests: options.tests, workers: 4, variants: ['waitForMessage'], log: () => {} });
        runs.set(setup, [...(runs.get(setup) ?? []), { seconds: result!.seconds, passed: result!.passed, failed: result!.failed }]);
      }
    }
    return {
      events,
      rows: setups.map(([setup]) => {
        const list = runs.get(setup) ?? [];
        const median = [...list].sort((a, b) => a.seconds - b.seconds)[Math.floor((list.length - 1) / 2)] ?? { seconds: NaN, passed: 0, failed: 0 };
        return { setup, tests: options.tests, workers: 4, ...median, secondsRuns: list.map((x) => x.seconds) };
      }),
    };
  } finally {
    for (const child of children.reverse()) {
      if (child.spawnfile === HAPROXY) child.kill('SIGTERM');
      else await stopNode(child);
    }
    if (db && typeof db !== 'string') await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
