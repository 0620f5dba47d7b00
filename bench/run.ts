/**
 * `npm run bench`: inboxkit against the tools people pick instead (MailDev 3's
 * push channel, a 500 ms polling waiter), on this machine, in one run.
 *
 * Usage: `npm run bench [-- --quick] [-- --only delivery,intake,fixtures,scaling,startup,fanout,suite,viewer,postgres,checks,sms,email-apis,balancer,imap] [-- --cpu-prof]`
 *
 * The `postgres` section (SQLite beside one and two PostgreSQL nodes) needs
 * `INBOXKIT_BENCH_POSTGRES_URL`; without it, it says so and is skipped.
 *
 * Every server runs in its own child process on 127.0.0.1 and free ports, and
 * is stopped at the end; nothing leaves the machine. Prints the tables with the
 * targets met or missed, and writes bench/results/latest.json and latest.md.
 * `--cpu-prof` writes V8 CPU profiles of the server processes to
 * .tmp/bench-prof/ (read them with `node bench/profile-summary.ts <file>`).
 *
 * @packageDocumentation
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildPackage } from './lib/build.ts';
import { startInboxkit, startMaildev } from './lib/hosts.ts';
import type { HostOptions } from './lib/hosts.ts';
import { fmt, markdownTable, ratio, table } from './lib/stats.ts';
import { runDelivery } from './sections/delivery.ts';
import type { DeliveryResult } from './sections/delivery.ts';
import { runFixtureDelivery } from './sections/fixture-delivery.ts';
import { runFanout } from './sections/fanout.ts';
import type { FanoutResult } from './sections/fanout.ts';
import { runFirstWait } from './sections/first-wait.ts';
import type { FirstWaitResult } from './sections/first-wait.ts';
import { runCreateDelete } from './sections/fixtures.ts';
import type { CreateDeleteResult } from './sections/fixtures.ts';
import { runIntake } from './sections/intake.ts';
import { runDataReply } from './sections/data-reply.ts';
import type { DataReplyResult } from './sections/data-reply.ts';
import type { IntakeResult } from './sections/intake.ts';
import { runScaling, runStartup } from './sections/scaling.ts';
import type { ScalingResult, StartupResult } from './sections/scaling.ts';
import { runSuites } from './sections/suite.ts';
import type { SuiteResult } from './sections/suite.ts';
import { runPostgres } from './sections/postgres.ts';
import type { PostgresResult } from './sections/postgres.ts';
import { runViewer } from './sections/viewer.ts';
import type { ViewerResult } from './sections/viewer.ts';
import { runChecks } from './sections/checks.ts';
import type { ChecksResult } from './sections/checks.ts';
import { runBalancer } from './sections/balancer.ts';
import type { BalancerOutcome } from './sections/balancer.ts';
import { runEmailApis } from './sections/email-apis.ts';
import type { EmailApisResult } from './sections/email-apis.ts';
import { runSms } from './sections/sms.ts';
import { runImapIdle } from './sections/imap-idle.ts';
import type { ImapIdleResult } from './sections/imap-idle.ts';
import type { SmsResult } from './sections/sms.ts';

const SECTIONS = ['delivery', 'intake', 'fixtures', 'scaling', 'startup', 'fanout', 'suite', 'viewer', 'postgres', 'checks', 'sms', 'email-apis', 'balancer', 'imap'] as const;
type Section = (typeof SECTIONS)[number];

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyArg = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const only = new Set<string>(onlyArg ? onlyArg.split(',') : SECTIONS);
for (const s of only) {
  if (!(SECTIONS as readonly string[]).includes(s)) {
    console.error(`bench: unknown section "${s}" in --only; choose from ${SECTIONS.join(', ')}.`);
    process.exit(2);
  }
}
const root = fileURLToPath(new URL('..', import.meta.url));
const hostOptions: HostOptions = args.includes('--cpu-prof') ? { cpuProfileDir: `${root}.tmp/bench-prof` } : {};
const want = (s: Section) => only.has(s);

const SIZE = quick
  ? { delivery: 100, poll: 25, intakeSmall: 600, intakeLarge: 150, intakeReps: 1, createDelete: 200, scaling: [10, 1_000, 10_000], requests: 100, startupRuns: 3, streams: 1000, fanoutMessages: 3, suiteTests: 40 }
  : { delivery: 500, poll: 25, intakeSmall: 1000, intakeLarge: 200, intakeReps: 3, createDelete: 1000, scaling: [10, 10_000, 100_000], requests: 300, startupRuns: 5, streams: 1000, fanoutMessages: 10, suiteTests: 200 };

const started = Date.now();
const log = (line: string) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

interface Results {
  meta: Record<string, unknown>;
  delivery?: DeliveryResult[];
  intake?: IntakeResult[];
  dataReply?: DataReplyResult[];
  createDelete?: CreateDeleteResult;
  scaling?: ScalingResult[];
  startup?: StartupResult[];
  firstWait?: FirstWaitResult;
  fanout?: FanoutResult;
  suite?: SuiteResult[];
  viewer?: ViewerResult;
  checks?: ChecksResult;
  sms?: SmsResult;
  imap?: ImapIdleResult;
  emailApis?: EmailApisResult;
  postgres?: PostgresResult[];
  balancer?: BalancerOutcome;
  targets?: Array<{ target: string; measured: string; met: boolean | null }>;
}

let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  // The servers are built from the working tree: say when it differs from the commit.
  if (execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: root, encoding: 'utf8' }).trim() !== '') commit += ' + uncommitted changes in src/';
} catch {}
const results: Results = {
  meta: {
    date: new Date().toISOString(),
    commit,
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    loadAverageAtStart: loadavg().map((l) => Number(l.toFixed(2))),
    quick,
  },
};

// ---- measurements ----
log('building the package (servers run compiled, as from dist/)');
const build = buildPackage();
process.on('exit', () => build.remove());
if (want('delivery') || want('intake') || want('fixtures') || want('fanout') || want('suite')) {
  const inboxkit = await startInboxkit({ build: build.dir, dbPath: null, delayedSmtp: 100 }, hostOptions);
  let maildev: Awaited<ReturnType<typeof startMaildev>> | null = null;
  if (want('delivery') || want('intake')) {
    try {
      maildev = await startMaildev(hostOptions);
    } catch (error) {
      log(`MailDev could not start, its columns stay empty (npm install installs it as a devDependency): ${(error as Error).message}`);
    }
  }
  try {
    if (want('delivery')) {
      results.delivery = await runDelivery(inboxkit, maildev, { samples: SIZE.delivery, pollConcurrency: SIZE.poll, log });
      results.delivery.push(...(await runFixtureDelivery(inboxkit, { samples: SIZE.delivery, log })));
    }
    if (want('intake')) {
      results.dataReply = await runDataReply(inboxkit, maildev, { samples: SIZE.delivery, log });
      results.intake = await runIntake(inboxkit, maildev, { small: SIZE.intakeSmall, large: SIZE.intakeLarge, repetitions: SIZE.intakeReps, log });
    }
    if (want('fixtures')) {
      log(`fixtures: ${SIZE.createDelete} inbox create + delete`);
      results.createDelete = await runCreateDelete(inboxkit, SIZE.createDelete);
    }
    if (want('fanout')) results.fanout = await runFanout(inboxkit, { streams: SIZE.streams, messages: SIZE.fanoutMessages, log });
    if (want('suite')) results.suite = await runSuites(inboxkit, { tests: SIZE.suiteTests, workers: 4, variants: ['no-email', 'waitForMessage', 'poll-500ms'], repetitions: quick ? 1 : 3, log });
  } finally {
    await maildev?.stop();
    await inboxkit.stop();
  }
}
if (want('scaling')) results.scaling = await runScaling({ sizes: SIZE.scaling, requests: SIZE.requests, build: build.dir, log });
if (want('startup')) {
  results.startup = await runStartup({ runs: SIZE.startupRuns, build: build.dir, log });
  results.firstWait = await runFirstWait({ runs: SIZE.startupRuns, build: build.dir, log });
}
if (want('checks')) results.checks = await runChecks({ count: quick ? 13 : 53, log });
if (want('sms')) results.sms = await runSms({ count: quick ? 21 : 101, log });
if (want('imap')) {
  const host = await startInboxkit({ build: build.dir, dbPath: null, imap: true }, hostOptions);
  try {
    results.imap = await runImapIdle(host, { samples: quick ? 100 : 300, log });
  } finally {
    await host.stop();
  }
}
if (want('email-apis')) results.emailApis = await runEmailApis({ count: quick ? 21 : 101, log });
if (want('viewer')) results.viewer = await runViewer({ build: build.dir, messages: 1000, loads: quick ? 5 : 20, live: quick ? 20 : 100, log }, hostOptions);
if (want('postgres')) {
  const pgResults = await runPostgres(process.env.INBOXKIT_BENCH_POSTGRES_URL?.trim() || null, { samples: quick ? 100 : 300, intake: quick ? 400 : 1000, log });
  if (pgResults) results.postgres = pgResults;
}
if (want('balancer')) results.balancer = await runBalancer({ build: build.dir, tests: SIZE.suiteTests, repetitions: quick ? 1 : 3, events: quick ? 20 : 100, log });
build.remove();
results.meta.loadAverageAtEnd = loadavg().map((l) => Number(l.toFixed(2)));
results.meta.seconds = Math.round((Date.now() - started) / 1000);

// ---- targets ----
const targets: NonNullable<Results['targets']> = [];
const check = (target: string, value: number | undefined, limit: number, unit: string, higherIsBetter = false) => {
  if (value === undefined || Number.isNaN(value)) return;
  targets.push({ target, measured: `${fmt(value)}${unit}`, met: higherIsBetter ? value >= limit : value <= limit });
};
const d = (target: string, sender: string, delay = 0) => results.delivery?.find((r) => r.target === target && r.sender === sender && r.greetingDelayMs === delay);
check('delivery p50, pooled sender ≤ 3 ms', d('inboxkit', 'pooled')?.latency.p50, 3, ' ms');
check('delivery p50, new connection ≤ 10 ms', d('inboxkit', 'new-connection')?.latency.p50, 10, ' ms');
for (const sender of ['pooled', 'new-connection'] as const) {
  // Each tool with its default greeting: inboxkit none, MailDev smtp-server's 100 ms.
  const own = d('inboxkit', sender)?.latency.p50;
  const peer = d('maildev', sender, 100)?.latency.p50;
  if (own !== undefined && peer !== undefined) check(`delivery p50, ${sender} ≤ 0.5× MailDev's`, own / peer, 0.5, '×');
  const ack = d('inboxkit', sender)?.smtpAck.p50;
  if (own !== undefined && ack !== undefined) check(`delivery p50, ${sender} ≤ its SMTP 250 p50 + 1 ms`, own - ack, 1, ' ms over the 250');
}
check('delivery p99, pooled ≤ 25 ms', d('inboxkit', 'pooled')?.latency.p99, 25, ' ms');
check('delivery p99, new connection ≤ 25 ms', d('inboxkit', 'new-connection')?.latency.p99, 25, ' ms');
const viaFixture = d('inboxkit-fixture', 'pooled')?.latency.p50;
const viaClient = d('inboxkit-fixture-client', 'pooled')?.latency.p50;
if (viaFixture !== undefined && viaClient !== undefined) check('delivery p50 through the Playwright fixture within 1 ms of the client\'s (same test)', viaFixture - viaClient, 1, ' ms more');
const intake = (target: string, senders: number, message = '10KB') => results.intake?.find((r) => r.target === target && r.senders === senders && r.message === message);
for (const message of ['10KB', '10KB+100KB']) {
  for (const senders of [1, 4, 16]) {
    const own = intake('inboxkit', senders, message);
    const peer = intake('maildev', senders, message);
    if (!own || !peer) continue;
    const wanted = senders === 1 ? 1 : 1.5;
    check(`intake, ${message}, ${senders} sender${senders > 1 ? 's' : ''} ≥ ${wanted}× MailDev`, own.perSecond / peer.perSecond, wanted, '×', true);
    check(`server CPU per message, ${message}, ${senders} sender${senders > 1 ? 's' : ''} ≤ MailDev's`, own.serverCpuMsPerMessage / peer.serverCpuMsPerMessage, 1, '×');
  }
}
check('last byte of DATA → 250, 10 KB HTML, p50 ≤ 1.5 ms', results.dataReply?.find((r) => r.target === 'inboxkit')?.latency.p50, 1.5, ' ms');
check('1,000 streams: push p50 ≤ 15 ms', results.fanout?.push.p50, 15, ' ms');
const withEmail = results.suite?.find((s) => s.variant === 'waitForMessage')?.seconds;
const withoutEmail = results.suite?.find((s) => s.variant === 'no-email')?.seconds;
if (withEmail !== undefined && withoutEmail !== undefined) check('the suite with email ≤ 1.05× the suite without (median runs)', withEmail / withoutEmail, 1.05, '×');
check('create + delete an inbox p50 ≤ 3 ms', results.createDelete?.createDelete.p50, 3, ' ms');
const mem = results.scaling?.filter((r) => r.mode === 'memory') ?? [];
const smallest = mem[0];
const largest = mem.at(-1);
if (smallest && largest && largest !== smallest) {
  check(`first page at ${largest.messages.toLocaleString('en')} ≤ 1.5× at ${smallest.messages}`, largest.firstPage.p50 / smallest.firstPage.p50, 1.5, '×');
}
const file = results.scaling?.find((r) => r.mode === 'file');
const restarted = results.scaling?.find((r) => r.mode === 'file, restarted');
if (file) check(`RSS after ${file.messages.toLocaleString('en')} messages, file mode ≤ 150 MB (the process that stored them)`, file.rssMb, 150, ' MB');
if (restarted) check(`RSS serving ${restarted.messages.toLocaleString('en')} messages, file mode ≤ 150 MB (restarted on the file)`, restarted.rssMb, 150, ' MB');
const startup = results.startup?.find((r) => r.target === 'inboxkit');
if (startup) check(`startup to healthy ≤ 0.35 s (${startup.command})`, startup.healthy.p50 / 1000, 0.35, ' s');
check('viewer: first page of a 1,000-message inbox p50 ≤ 300 ms', results.viewer?.firstPage.p50, 300, ' ms');
check('viewer: new mail shown ≤ 200 ms after the SMTP 250 (p99)', results.viewer?.live.p99, 200, ' ms');
const firstWait = results.firstWait;
if (results.imap) check('SMTP send → IMAP IDLE EXISTS at the client, p50 within 2 ms of the event stream\'s', results.imap.idle.p50 - results.imap.sse.p50, 2, ' ms more');
if (results.sms) check('SMS through the twilio SDK → code in hand, p50 ≤ the email path\'s p50 + 5 ms', results.sms.sms.p50 - results.sms.email.p50, 5, ' ms more');
const smtpPath = results.emailApis?.find((r) => r.path === 'email, SMTP');
for (const row of results.emailApis ?? []) if (smtpPath && row !== smtpPath) check(`email through the ${row.path} → code in hand, p50 ≤ the SMTP path's p50 + 5 ms`, row.latency.p50 - smtpPath.latency.p50, 5, ' ms more');
if (firstWait) check('first wait after start p50 ≤ a later wait\'s p50 + 20 ms (no warm-up left for the first test)', firstWait.first.p50 - firstWait.second.p50, 20, ' ms more');
results.targets = targets;

// ---- output ----
const out: string[] = [];
const md: string[] = [];
const section = (title: string, header: string[], rows: string[][]) => {
  out.push(`\n${title}\n${table(header, rows)}`);
  md.push(`\n**${title}**\n\n${markdownTable(header, rows)}`);
};
const meta = results.meta;
out.push(`inboxkit benchmark ${quick ? '(quick) ' : ''}— ${meta.date}, commit ${meta.commit}, Node ${meta.node}, ${meta.cpus}`);
out.push(`load average at start ${JSON.stringify(meta.loadAverageAtStart)}, at end ${JSON.stringify(meta.loadAverageAtEnd)}; ${meta.seconds} s`);

/** A difference with its sign. */
const signed = (value: number) => `${value >= 0 ? '+' : ''}${fmt(value)}`;

if (results.postgres) {
  const base = results.postgres[0];
  section(
    'Storage backends: intake with 4 pooled senders, and delivery latency (SMTP send start → message event on an open stream, ms)',
    ['setup', 'intake msg/s', 'latency n', 'p50', 'p95', 'p99', 'p50 vs sqlite'],
    results.postgres.map((r) => [r.setup, fmt(r.intakePerSecond), String(r.latency.n), fmt(r.latency.p50), fmt(r.latency.p95), fmt(r.latency.p99), base ? `${signed(r.latency.p50 - base.latency.p50)} ms` : '']),
  );
  const [, one, two] = results.postgres;
  if (one && two) out.push(`the extra hop of two nodes (NOTIFY, then node B reads the row): ${signed(two.latency.p50 - one.latency.p50)} ms at p50, ${signed(two.latency.p95 - one.latency.p95)} ms at p95`);
}

if (results.delivery) {
  const ref = (sender: string) => d('inboxkit', sender)?.latency;
  section(
    'Delivery latency: SMTP send start → full message in the waiter (ms)',
    ['waiter', 'sender', 'greeting wait', 'n', 'p50', 'p95', 'p99', 'SMTP 250 p50', 'p50 vs inboxkit'],
    results.delivery.map((r) => [
      ({
        inboxkit: 'inboxkit waitForMessage',
        'inboxkit-open-stream': 'inboxkit stream opened before + GET',
        'inboxkit-fixture': 'Playwright fixture inbox.waitForMessage (report on)',
        'inboxkit-fixture-client': 'client waitForMessage, same test (alternating)',
        maildev: 'MailDev Socket.IO newMail + GET',
      } as Record<string, string>)[r.target] ??
        `poll every 500 ms${r.concurrency > 1 ? ` (${r.concurrency} at once)` : ''}`,
      r.sender,
      `${r.greetingDelayMs} ms`,
      String(r.latency.n),
      fmt(r.latency.p50),
      fmt(r.latency.p95),
      fmt(r.latency.p99),
      fmt(r.smtpAck.p50),
      ratio(r.latency.p50, ref(r.sender)?.p50),
    ]),
  );
}
const phased = results.delivery?.find((r) => r.phases);
if (phased?.phases) {
  section(
    'Where inboxkit\'s delivery time goes (stream opened before the send, pooled sender; ms)',
    ['phase', 'p50', 'p95', 'p99'],
    Object.entries(phased.phases).map(([name, p]) => [name, fmt(p.p50), fmt(p.p95), fmt(p.p99)]),
  );
}
if (results.intake) {
  const rows = results.intake
    .filter((r) => r.target === 'inboxkit')
    .map((r) => {
      const peer = intake('maildev', r.senders, r.message);
      return [r.message, String(r.senders), fmt(r.perSecond), fmt(peer?.perSecond), ratio(r.perSecond, peer?.perSecond), fmt(r.serverCpuMsPerMessage), fmt(peer?.serverCpuMsPerMessage)];
    });
  const dataRows = (results.dataReply ?? []).map((r) => [r.target === 'inboxkit' ? 'inboxkit' : 'MailDev', String(r.bytes), String(r.latency.n), fmt(r.latency.p50), fmt(r.latency.p95), fmt(r.latency.p99)]);
  if (dataRows.length > 0) section('Last byte of DATA → 250: a raw-socket sender, one connection, a precomposed 10 KB HTML email (ms)', ['server', 'bytes', 'n', 'p50', 'p95', 'p99'], dataRows);
  section(`Intake throughput (msg/s to the 250 reply; server CPU ms per message; median of ${results.intake[0]?.repetitions ?? 1} alternating runs)`, ['message', 'senders', 'inboxkit', 'MailDev', 'ratio', 'inboxkit CPU', 'MailDev CPU'], rows);
}
if (results.createDelete) {
  const c = results.createDelete;
  section('Fixture overhead: an inbox per test (ms)', ['operation', 'n', 'p50', 'p95', 'p99'], [
    ['create + delete', String(c.createDelete.n), fmt(c.createDelete.p50), fmt(c.createDelete.p95), fmt(c.createDelete.p99)],
    ['create', String(c.create.n), fmt(c.create.p50), fmt(c.create.p95), fmt(c.create.p99)],
    ['delete', String(c.delete.n), fmt(c.delete.p50), fmt(c.delete.p95), fmt(c.delete.p99)],
  ]);
}
if (results.suite) {
  const base = results.suite.find((s) => s.variant === 'waitForMessage');
  section(
    `Playwright suite: ${results.suite[0]?.tests} tests, ${results.suite[0]?.workers} workers, one email each (wall time, s; median of ${results.suite[0]?.secondsRuns.length ?? 1} alternating runs)`,
    ['variant', 'passed', 'failed', 'wall', 'runs', 'vs waitForMessage'],
    results.suite.map((s) => [s.variant, String(s.passed), String(s.failed), fmt(s.seconds), s.secondsRuns.map((x) => fmt(x)).join(' / '), ratio(s.seconds, base?.seconds)]),
  );
}
if (results.balancer) {
  const outcome = results.balancer;
  if ('skipped' in outcome) {
    out.push(`\nThe email test suite through the balancer: skipped, ${outcome.skipped}`);
    md.push(`\n**The email test suite through the balancer**: skipped, ${outcome.skipped}`);
  } else {
    const direct = outcome.events[0]?.latency;
    section(
      `An event through the balancer vs the node direct: a message's SMTP send (to node 1) to its event on a stream, one at a time (ms, ${direct?.n ?? 0} events each)`,
      ['setup', 'p50', 'p95', 'max', 'p50 vs direct'],
      outcome.events.map((e) => [e.setup, fmt(e.latency.p50), fmt(e.latency.p95), fmt(e.latency.max), `${e.latency.p50 - (direct?.p50 ?? 0) >= 0 ? '+' : ''}${fmt(e.latency.p50 - (direct?.p50 ?? 0))}`]),
    );
    const base = outcome.rows[0];
    section(
      `An email test suite through the balancer vs one node direct: ${base?.tests} tests, ${base?.workers} workers, one email each, PostgreSQL (wall time, s; median of ${base?.secondsRuns.length ?? 1} alternating runs)`,
      ['setup', 'passed', 'failed', 'wall', 'runs', 'vs one node direct'],
      outcome.rows.map((r) => [r.setup, String(r.passed), String(r.failed), fmt(r.seconds), r.secondsRuns.map((x) => fmt(x)).join(' / '), ratio(r.seconds, base?.seconds)]),
    );
  }
}
if (results.scaling) {
  const first = results.scaling[0]?.firstPage.p50;
  section(
    'Scaling: GET /inboxes/{id}/messages first page; memory (filled through the Store API)',
    ['messages', 'mode', 'p50 ms', 'p99 ms', 'vs 10', 'RSS MB', 'RSS after GC', 'heap MB', 'fill s'],
    results.scaling.map((r) => [r.messages.toLocaleString('en'), r.mode, fmt(r.firstPage.p50), fmt(r.firstPage.p99), ratio(r.firstPage.p50, first), fmt(r.rssMb), fmt(r.rssAfterGcMb), fmt(r.heapAfterGcMb), fmt(r.fillSeconds)]),
  );
}
if (results.startup) {
  section(
    'Startup: spawn → ready line / → health check answering (ms, median)',
    ['command', 'runs', 'ready', 'healthy', 'CPU at ready'],
    results.startup.map((s) => [s.command, String(s.ready.n), fmt(s.ready.p50), fmt(s.healthy.p50), fmt(s.cpuAtReady.p50)]),
  );
}
if (results.firstWait) {
  const w = results.firstWait;
  section(
    'First wait after start: a fresh inboxkit serve, then an inbox, a 10 KB email and waitForMessage (ms from the SMTP send, median)',
    ['command', 'runs', 'first wait after start', 'second wait', 'difference'],
    [[w.command, String(w.first.n), fmt(w.first.p50), fmt(w.second.p50), fmt(w.first.p50 - w.second.p50)]],
  );
}
if (results.fanout) {
  const f = results.fanout;
  section(
    `Stream fan-out: ${f.streams} streams on one inbox, ${f.messages} messages (ms from send start)`,
    ['samples', 'push p50', 'push p95', 'push p99', 'last stream p50', 'server heap KB/stream'],
    [[String(f.push.n), fmt(f.push.p50), fmt(f.push.p95), fmt(f.push.p99), fmt(f.lastStream.p50), fmt(f.heapPerStreamKb)]],
  );
}
if (results.viewer) {
  const v = results.viewer;
  section(
    'Web viewer in Chromium (ms)',
    ['measure', 'n', 'p50', 'p95', 'p99'],
    [
      [`navigation start → first page of ${v.shown} rendered, inbox of ${v.messages.toLocaleString('en')}`, String(v.firstPage.n), fmt(v.firstPage.p50), fmt(v.firstPage.p95), fmt(v.firstPage.p99)],
      ['SMTP 250 → new mail in the open viewer\'s list', String(v.live.n), fmt(v.live.p50), fmt(v.live.p95), fmt(v.live.p99)],
    ],
  );
}
if (results.checks) {
  const c = results.checks;
  section(
    `Email checks per message: DKIM-signed 10 KB HTML emails (ms from the client's call to its answer)`,
    ['check', 'n', 'p50', 'p95', 'max', 'scanner p50', 'note'],
    c.timings.map((t) => [t.check, t.perMessage ? String(t.perMessage.n) : '–', t.perMessage ? fmt(t.perMessage.p50) : '–', t.perMessage ? fmt(t.perMessage.p95) : '–', t.perMessage ? fmt(t.perMessage.max) : '–', t.scanner ? fmt(t.scanner.p50) : '–', t.note]),
  );
}
if (results.sms) {
  const { sms, email } = results.sms;
  section(
    'SMS beside email: send (twilio SDK messages.create, or SMTP) → the test holds the message and its code (ms)',
    ['path', 'n', 'p50', 'p95', 'max'],
    [['SMS, twilio SDK', sms], ['email, SMTP', email]].map(([name, s]) => [name as string, String((s as typeof sms).n), fmt((s as typeof sms).p50), fmt((s as typeof sms).p95), fmt((s as typeof sms).max)]),
  );
}
if (results.imap) {
  const { idle, sse, smtpAck } = results.imap;
  section(
    'IMAP IDLE beside the event stream: SMTP send start → the client holds the new mail\'s notice (ms)',
    ['path', 'n', 'p50', 'p95', 'p99'],
    [
      ['IMAP IDLE, * N EXISTS', String(idle.n), fmt(idle.p50), fmt(idle.p95), fmt(idle.p99)],
      ['event stream, message event', String(sse.n), fmt(sse.p50), fmt(sse.p95), fmt(sse.p99)],
      ['SMTP 250 at the sender', String(smtpAck.n), fmt(smtpAck.p50), fmt(smtpAck.p95), fmt(smtpAck.p99)],
    ],
  );
}
if (results.emailApis) {
  section(
    'Email through the providers\' APIs beside SMTP: send (each SDK, or SMTP) → the test holds the message and its code (ms)',
    ['path', 'n', 'p50', 'p95', 'max'],
    results.emailApis.map((r) => [r.path, String(r.latency.n), fmt(r.latency.p50), fmt(r.latency.p95), fmt(r.latency.max)]),
  );
}
section('Targets', ['target', 'measured', 'verdict'], targets.map((t) => [t.target, t.measured, t.met === null ? '–' : t.met ? 'met' : 'MISSED']));

console.log(out.join('\n'));
mkdirSync(`${root}bench/results`, { recursive: true });
writeFileSync(`${root}bench/results/latest.json`, `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(
  `${root}bench/results/latest.md`,
  `Measured ${meta.date} (commit ${meta.commit}), Node ${meta.node}, ${meta.cpus}, load average ${JSON.stringify(meta.loadAverageAtStart)} → ${JSON.stringify(meta.loadAverageAtEnd)}${quick ? ', quick run' : ''}.\n${md.join('\n')}\n`,
);
console.error(`\nwrote bench/results/latest.json and bench/results/latest.md`);
