/**
 * The team service of issue 40 on one machine, on loopback only: a
 * PostgreSQL cluster of its own, two `inboxkit serve` nodes on it, HAProxy
 * in front (HTTP, and SMTP with the PROXY protocol), Postfix as the app's
 * relay (STARTTLS and SMTP AUTH to the service through HAProxy; no local or
 * outside delivery) and Prometheus scraping every node. The configurations
 * are rendered from docs/team-service/, the files the guide shows word for word.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, chownSync, chmodSync } from 'node:fs';
import { userInfo } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnServe } from './serve.ts';
import { guideCommand, localize } from './team-guide.ts';
import type { Served } from './serve.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEAM_DOCS = join(ROOT, 'docs/team-service');

/** The daemons the harness needs, and where each is. */
const DAEMONS = { haproxy: '/usr/sbin/haproxy', postfix: '/usr/sbin/postfix', prometheus: '/usr/bin/prometheus', openssl: '/usr/bin/openssl' };

/** Why the team harness cannot run here, or null when it can. */
export function teamSkipReason(): string | null {
  const missing = Object.entries(DAEMONS).filter(([, path]) => !existsSync(path)).map(([name]) => name);
  if (!existsSync('/usr/lib/postgresql')) missing.push('postgresql');
  if (missing.length > 0) return `the team-service harness needs Debian's ${missing.join(', ')} (apt-get install ${missing.join(' ')}; .ci/run installs them)`;
  if (userInfo().uid !== 0) return 'the team-service harness runs Postfix and PostgreSQL as their own users, which needs root (as in CI)';
  return null;
}

/** A template of docs/team-service with its {{PLACEHOLDERS}} filled. */
export function render(file: string, values: Record<string, string>): string {
  return readFileSync(join(TEAM_DOCS, file), 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`docs/team-service/${file}: no value for {{${name}}}`);
    return value;
  });
}

/** A port free on 127.0.0.1 right now (for a daemon's configuration, which needs the number before it listens). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One node's fixed ports, kept across its restarts (the balancer's configuration names them). */
interface NodePorts {
  http: number;
  smtp: number;
}

/** A running team service. */
export interface Team {
  /** The balancer's HTTP origin (the API is under /api/v1). */
  baseUrl: string;
  /** Postfix's loopback port, where the app sends its mail. */
  relayPort: number;
  /** The balancer's SMTP port. */
  balancerSmtpPort: number;
  /** HAProxy's view of each node, `backend/server` → `UP`, `DOWN`, … (its stats page, as CSV). */
  balancerStates(): Promise<Record<string, string>>;
  /** Prometheus' HTTP API origin. */
  prometheusUrl: string;
  /** Each node's direct HTTP origin. */
  nodeUrls: string[];
  /** The API key of the run (SMTP AUTH password of Postfix). */
  apiKey: string;
  /**
   * A rolling restart's step: SIGTERM to node `i` (a drain), wait for its exit, start it
   * again on the same ports, and wait until HAProxy sends to it again (UP in both backends),
   * as an operator does before restarting the next node.
   */
  restartNode(i: number): Promise<void>;
  /** Stops PostgreSQL (every connection cut), starts it again on the same data, and waits until HAProxy has every node UP. */
  restartPostgres(): Promise<void>;
  /** Each node's state, for a failure's message: its process and its own /readyz. */
  nodeStates(): Promise<string>;
  /** Messages Postfix has relayed so far (its log's `status=sent` lines). */
  relayed(): number;
  /** The end of Postfix's log, for a failure's message (`whole`: all of it). */
  postfixLog(whole?: boolean): string;
  /** What every node process of the run (each restart's too) printed, labelled, for a failure's attachment. */
  nodeLogs(): string;
  /** Messages still in Postfix's queue. */
  queued(): Promise<number>;
  /** A PromQL instant query: the values of its samples. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: number }>>;
  stop(): Promise<void>;
}

const API_KEY = 'tm_team-service-harness-key-0123456789';

/** Starts the whole team service; `stop()` ends everything it started. */
export async function startTeam(options: { nodes?: number } = {}): Promise<Team> {
  const dir = mkdtempSync(join(tmpdir(), 'inboxkit-team-'));
  // Postfix's own user must reach its queue and data folders inside.
  chmodSync(dir, 0o755);
  const children: ChildProcess[] = [];
  const stops: Array<() => Promise<void>> = [];
  const pgEnv = { ...process.env, INBOXKIT_PG_STATE: join(dir, 'postgres.env') };
  const pg = (...args: string[]) => run('bash', [join(ROOT, 'tests/support/postgres.sh'), ...args], { env: pgEnv });
  try {
    const pgPort = await freePort();
    const databaseUrl = (await pg('start', String(pgPort))).stdout.trim();
    stops.push(async () => void (await pg('stop')));

    const count = options.nodes ?? 2;
    const ports: NodePorts[] = [];
    for (let i = 0; i < count; i++) ports.push({ http: await freePort(), smtp: await freePort() });
    const nodes: Array<Served | null> = ports.map(() => null);
    /** Every node process started, for nodeLogs(). */
    const incarnations: Array<{ label: string; served: Served }> = [];
    // The nodes run the guide's own command line (docs/team-service.md, "The nodes"), its example
    // values swapped for the harness's: loopback, free ports, TLS files made by the guide's command.
    const tlsDir = join(dir, 'tls');
    const tls = localize(guideCommand('openssl req'), { '/etc/inboxkit/tls': tlsDir });
    mkdirSync(tlsDir, { recursive: true });
    await run(tls[0]!, tls.slice(1));
    const serve = guideCommand('npx inboxkit serve');
    const args = (p: NodePorts) =>
      localize(serve.slice(3), { '0.0.0.0': '127.0.0.1', '8025': String(p.http), '2525': String(p.smtp), '10.0.0.5': '127.0.0.1', '/etc/inboxkit/tls': tlsDir });
    const startNode = async (i: number) => {
      // spawnServe adds --port 0 --smtp-port 0 first; the later flags win.
      nodes[i] = await spawnServe(args(ports[i]!), { env: { DATABASE_URL: databaseUrl, INBOXKIT_API_KEYS: API_KEY } });
      incarnations.push({ label: `node ${i + 1} (start ${incarnations.filter((n) => n.label.startsWith(`node ${i + 1} `)).length + 1})`, served: nodes[i]! });
    };
    const stopNode = async (i: number) => {
      const node = nodes[i];
      if (!node || node.child.exitCode !== null) return;
      const exited = new Promise((resolve) => node.child.once('exit', resolve));
      node.child.kill('SIGTERM');
      await exited;
    };
    for (let i = 0; i < count; i++) await startNode(i);
    stops.push(async () => {
      await Promise.all(ports.map((_, i) => stopNode(i)));
    });

    const balancerHttp = await freePort();
    const balancerSmtp = await freePort();
    const balancerStats = await freePort();
    writeFileSync(join(dir, 'haproxy.cfg'), render('haproxy.cfg', {
      BALANCER_HTTP_PORT: String(balancerHttp),
      BALANCER_SMTP_PORT: String(balancerSmtp),
      BALANCER_STATS_PORT: String(balancerStats),
      HTTP_SERVERS: ports.map((p, i) => `    server node${i + 1} 127.0.0.1:${p.http} check`).join('\n'),
      SMTP_SERVERS: ports.map((p, i) => `    server node${i + 1} 127.0.0.1:${p.smtp} send-proxy check port ${p.http}`).join('\n'),
    }));
    const haproxy = spawn(DAEMONS.haproxy, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(haproxy);

    const postfixDir = join(dir, 'postfix');
    mkdirSync(join(postfixDir, 'queue'), { recursive: true });
    mkdirSync(join(postfixDir, 'data'), { recursive: true });
    const postfixUser = Number((await run('id', ['-u', 'postfix'])).stdout.trim());
    chownSync(join(postfixDir, 'data'), postfixUser, -1);
    const relayPort = await freePort();
    writeFileSync(join(postfixDir, 'main.cf'), render('postfix-main.cf', { POSTFIX_DIR: postfixDir, BALANCER_SMTP_PORT: String(balancerSmtp), SMTP_USER: 'ci-relay', SMTP_PASSWORD: API_KEY }));
    writeFileSync(join(postfixDir, 'master.cf'), render('postfix-master.cf', { POSTFIX_LISTEN: `127.0.0.1:${relayPort}` }));
    const postfixStart = localize(guideCommand('postfix -c'), { '/srv/relay': postfixDir });
    await run(DAEMONS.postfix, postfixStart.slice(1)).catch((error: Error) => {
      const log = existsSync(join(postfixDir, 'maillog')) ? readFileSync(join(postfixDir, 'maillog'), 'utf8').slice(-2000) : '(no maillog)';
      throw new Error(`Postfix did not start: ${error.message}\n${log}`);
    });
    stops.push(async () => void (await run(DAEMONS.postfix, ['-c', postfixDir, 'stop']).catch(() => undefined)));

    const promPort = await freePort();
    writeFileSync(join(dir, 'prometheus.yml'), render('prometheus.yml', { NODE_TARGETS: ports.map((p) => `'127.0.0.1:${p.http}'`).join(', '), BALANCER_STATS_TARGET: `'127.0.0.1:${balancerStats}'` }));
    const prometheus = spawn(DAEMONS.prometheus, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'prometheus-data')}`, `--web.listen-address=127.0.0.1:${promPort}`], { stdio: 'ignore' });
    children.push(prometheus);
    const prometheusUrl = `http://127.0.0.1:${promPort}`;
    const baseUrl = `http://127.0.0.1:${balancerHttp}`;
    const balancerStates = () => haproxyStates(`http://127.0.0.1:${balancerStats}`);
    /** Waits until HAProxy has the given nodes (1-based names) UP in both backends. */
    const balancerUp = async (which: number[], after: string) => {
      const names = which.flatMap((n) => [`inboxkit_http/node${n}`, `inboxkit_smtp/node${n}`]);
      await waitFor(async () => {
        const states = await balancerStates();
        return names.every((name) => states[name] === 'UP');
      }, `HAProxy to have ${names.join(', ')} UP ${after}`, 120_000).catch(async (error: Error) => {
        throw new Error(`${error.message}; HAProxy says ${JSON.stringify(await balancerStates().catch(() => ({})))}`);
      });
    };
    await balancerUp(ports.map((_, i) => i + 1), 'at start');
    await waitFor(async () => (await fetch(`${prometheusUrl}/-/ready`)).status === 200, 'Prometheus to be ready');

    return {
      baseUrl,
      relayPort,
      balancerSmtpPort: balancerSmtp,
      balancerStates,
      prometheusUrl,
      nodeUrls: ports.map((p) => `http://127.0.0.1:${p.http}`),
      apiKey: API_KEY,
      async restartNode(i) {
        await stopNode(i);
        await startNode(i);
        await balancerUp([i + 1], `after restarting node ${i + 1}`);
      },
      async restartPostgres() {
        await pg('restart');
        await balancerUp(ports.map((_, i) => i + 1), 'after restarting PostgreSQL');
      },
      async nodeStates() {
        const states = await Promise.all(
          nodes.map(async (node, i) => {
            const status = await fetch(`http://127.0.0.1:${ports[i]!.http}/readyz`).then((r) => String(r.status), (e: Error) => e.message);
            return `node ${i + 1}: exit ${String(node?.child.exitCode)}, /readyz ${status}, stderr ${(node?.errors() ?? '').slice(-1500)}`;
          }),
        );
        return states.join('\n');
      },
      relayed: () => (existsSync(join(postfixDir, 'maillog')) ? readFileSync(join(postfixDir, 'maillog'), 'utf8').split('status=sent').length - 1 : 0),
      postfixLog: (whole = false) => (existsSync(join(postfixDir, 'maillog')) ? readFileSync(join(postfixDir, 'maillog'), 'utf8').slice(whole ? 0 : -3000) : '(no maillog)'),
      nodeLogs: () => incarnations.map(({ label, served }) => `===== ${label}: stdout\n${served.output()}\n===== ${label}: stderr\n${served.errors()}`).join('\n'),
      async queued() {
        const { stdout } = await run('/usr/sbin/postqueue', ['-c', postfixDir, '-j']).catch(() => ({ stdout: '' }));
        return stdout.split('\n').filter((l) => l.trim().startsWith('{')).length;
      },
      async query(promql) {
        const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
        const body = (await res.json()) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
        return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
      },
      stop: async () => {
        for (const child of children.reverse()) child.kill('SIGTERM');
        for (const stop of stops.reverse()) await stop().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const child of children) child.kill('SIGKILL');
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** HAProxy's stats page as CSV rows, `backend/server` (or `proxy/FRONTEND`, `proxy/BACKEND`) → column → value. */
export async function haproxyStats(statsOrigin: string): Promise<Record<string, Record<string, string>>> {
  const csv = await (await fetch(`${statsOrigin}/stats;csv`)).text();
  const [head, ...rows] = csv.split('\n').filter((line) => line.trim() !== '');
  const columns = (head ?? '').replace(/^# /, '').split(',');
  const table: Record<string, Record<string, string>> = {};
  for (const row of rows) {
    const cells = row.split(',');
    const record = Object.fromEntries(columns.map((name, i) => [name, cells[i] ?? '']));
    table[`${record.pxname}/${record.svname}`] = record;
  }
  return table;
}

/** HAProxy's state of each server, `backend/server` → `UP`, `DOWN`, `MAINT`, … */
export async function haproxyStates(statsOrigin: string): Promise<Record<string, string>> {
  const states: Record<string, string> = {};
  for (const [name, row] of Object.entries(await haproxyStats(statsOrigin))) {
    if (row.svname !== 'FRONTEND' && row.svname !== 'BACKEND') states[name] = row.status ?? '';
  }
  return states;
}

/** Polls `check` every 250 ms until it is true; gives up after a minute, naming what it waited for. */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
