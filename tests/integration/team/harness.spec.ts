/**
 * The team service of issue 40, run as an operator runs it, on loopback:
 * two nodes on one PostgreSQL behind HAProxy, the app's mail through Postfix
 * (STARTTLS and SMTP AUTH to the service), Prometheus scraping every node.
 * A Playwright suite of email tests (tests/team-suite, 4 workers) runs
 * through the balancer while every node is restarted in turn twice and
 * PostgreSQL once: no test fails, nothing stays queued, the counters
 * Prometheus scraped match what was sent, and event streams held open through
 * every restart resume on another node with every message once and no gap. Skipped, saying why, where the
 * daemons are missing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { test, expect } from '@playwright/test';
import { createClient } from '../../../src/client/index.ts';
import type { InboxkitClient } from '../../../src/client/index.ts';
import { startTeam, teamSkipReason, waitFor } from '../../support/team.ts';
import type { Team } from '../../support/team.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SUITE_TESTS = 200;

test.describe.configure({ mode: 'serial', timeout: 20 * 60_000 });
test.skip(teamSkipReason() !== null, teamSkipReason() ?? '');

let team: Team;
/** Messages sent to the service without Postfix (Prometheus counts them too). */
let sentDirectly = 0;
test.beforeAll(async () => {
  test.setTimeout(5 * 60_000);
  team = await startTeam({ nodes: 2 });
});
// eslint-disable-next-line no-empty-pattern -- Playwright hooks take their fixtures as the first argument
test.afterEach(async ({}, info) => {
  if (info.status !== info.expectedStatus && team) {
    // The whole logs as files (the terminal shows their paths), the end of Postfix's inline.
    writeFileSync(info.outputPath('maillog.txt'), team.postfixLog(true));
    writeFileSync(info.outputPath('nodes.log'), team.nodeLogs());
    await info.attach('postfix maillog', { path: info.outputPath('maillog.txt'), contentType: 'text/plain' });
    await info.attach('node logs', { path: info.outputPath('nodes.log'), contentType: 'text/plain' });
    console.log(team.postfixLog());
  }
});
test.afterAll(async () => {
  await team?.stop();
});

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${team.baseUrl}/api/v1${path}`, { ...init, headers: { 'content-type': 'application/json', authorization: `Bearer ${team.apiKey}`, ...init.headers } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

const relay = () => nodemailer.createTransport({ host: '127.0.0.1', port: team.relayPort, secure: false, ignoreTLS: true });

async function messages(inboxId: string): Promise<Array<{ id: string; subject: string }>> {
  return (await api<{ items: Array<{ id: string; subject: string }> }>(`/inboxes/${inboxId}/messages?limit=100`)).items;
}

test('a greylisted inbox gets the app\'s mail anyway: Postfix is told 451 4.7.1, queues it and retries', { tag: '@heavy' }, async () => {
  const inbox = await api<{ id: string; address: string }>('/inboxes', { method: 'POST', body: '{}' });
  await api(`/inboxes/${inbox.id}/delivery-fault`, { method: 'PUT', body: JSON.stringify({ kind: 'greylist' }) });
  await relay().sendMail({ from: 'no-reply@app.test', to: inbox.address, subject: 'after greylisting', text: 'hello' });
  await waitFor(async () => (await messages(inbox.id)).length === 1, 'the greylisted message after Postfix retried');
  await waitFor(async () => ((await team.query('sum(inboxkit_mail_refused_total{reason="fault"})'))[0]?.value ?? 0) >= 1, 'Prometheus to see the greylisting refusal');
});

test('behind the balancer a node sees the client\'s own address, not the balancer\'s, in the message envelope', { tag: '@heavy' }, async () => {
  const inbox = await api<{ id: string; address: string }>('/inboxes', { method: 'POST', body: '{}' });
  const direct = nodemailer.createTransport({ host: '127.0.0.1', port: team.balancerSmtpPort, localAddress: '127.0.0.9', secure: false, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'ci-runner', pass: team.apiKey } });
  await direct.sendMail({ from: 'ci@app.test', to: inbox.address, subject: 'from 127.0.0.9', text: 'hello' });
  sentDirectly++;
  const [summary] = await messages(inbox.id);
  const message = await api<{ envelope: { clientAddress: string } }>(`/messages/${summary!.id}`);
  expect(message.envelope.clientAddress).toBe('127.0.0.9');
});

/** Where the run is (the restart under way), for the outages of the streams. */
let phase = 'before the restarts';

/**
 * A long-lived event stream through the balancer: the seqs of the messages it delivered, in order, its
 * connections, and through each restart how long it was without a live connection (`outages`: from the
 * moment its connection ended to the moment the next one was live, `ready`; a connection handed over
 * by a draining node stays live until the next one is, and then counts 0), how long the next connection
 * took to be live after the hand-over (`switches`: the time the old connection covered), and how long
 * each message took from being stored (`receivedAt`) to arriving on the stream (`delays`; those that
 * arrived between a hand-over and the next connection's `ready` also in `handoverDelays`: a message
 * the old connection failed to deliver would wait for the next one's replay, a whole switch).
 */
function watch(client: InboxkitClient, inboxId: string) {
  const outages: Array<{ phase: string; ms: number }> = [];
  const switches: Array<{ phase: string; ms: number }> = [];
  const delays: Array<{ phase: string; ms: number }> = [];
  const handoverDelays: Array<{ phase: string; ms: number }> = [];
  let droppedAt: number | null = null;
  let handedOverAt: number | null = null;
  const stream = client.inboxes.stream(inboxId, {
    maxReconnectAttempts: 30,
    onLifecycle: (event) => {
      if (event.type === 'handover') handedOverAt ??= performance.now();
      if (event.type === 'dropped') droppedAt ??= performance.now();
      if (event.type !== 'ready' || (droppedAt === null && handedOverAt === null)) return;
      outages.push({ phase, ms: droppedAt === null ? 0 : Math.round(performance.now() - droppedAt) });
      if (handedOverAt !== null) switches.push({ phase, ms: Math.round(performance.now() - handedOverAt) });
      droppedAt = handedOverAt = null;
    },
  });
  const seqs: number[] = [];
  const done = (async () => {
    for await (const event of stream) {
      if (event.type !== 'message') continue;
      seqs.push(event.message.seq);
      const delay = { phase, ms: Date.now() - Date.parse(event.message.receivedAt) };
      delays.push(delay);
      if (handedOverAt !== null) handoverDelays.push(delay);
    }
  })();
  return { inboxId, seqs, outages, switches, delays, handoverDelays, done, connections: () => stream.connections, state: () => stream.state, close: () => stream.close() };
}

/** Figures by phase: `{ phase: [ms, …] }`, sorted. */
function byPhase(figures: Array<{ phase: string; ms: number }>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const { phase, ms } of figures) (out[phase] ??= []).push(ms);
  for (const list of Object.values(out)) list.sort((a, b) => a - b);
  return out;
}

test('200 email tests with 4 workers through HAProxy and Postfix pass while every node restarts twice and PostgreSQL once; nothing is lost, streams resume within half a second, and Prometheus counts what Postfix delivered over the whole run', { tag: '@heavy' }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'inboxkit-team-suite-'));
  const report = join(out, 'report.json');
  const restartsDone = join(out, 'restarts-done');
  // The restarts, while the suite runs: node 1, node 2, PostgreSQL, node 1, node 2. The suite's
  // tests come in one batch more than there are restarts; each restart begins once half of the
  // batches released so far has been relayed by Postfix, and releases the next batch as it
  // begins, so that tests run through every restart however fast the machine is.
  const schedule = ['node 1', 'node 2', 'postgres', 'node 1', 'node 2'];
  const batches = schedule.length + 1;
  const batchSize = Math.ceil(SUITE_TESTS / batches);
  const suite = spawn(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(ROOT, 'tests/team-suite/playwright.config.ts'), '--output', join(out, 'results')], {
    cwd: ROOT,
    env: { ...process.env, INBOXKIT_TEAM_BASE_URL: team.baseUrl, INBOXKIT_TEAM_API_KEY: team.apiKey, INBOXKIT_TEAM_RELAY_PORT: String(team.relayPort), INBOXKIT_TEAM_TESTS: String(SUITE_TESTS), INBOXKIT_TEAM_REPORT: report, INBOXKIT_TEAM_RESTARTS_DONE: restartsDone, INBOXKIT_TEAM_GATES: out, INBOXKIT_TEAM_BATCHES: String(batches), CI: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  suite.stdout.on('data', (d: Buffer) => (output += d.toString()));
  suite.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const finished = new Promise<number | null>((resolve) => suite.once('exit', resolve));
  let done = false;
  void finished.then(() => (done = true));

  // Streams that stay open through every restart, through the balancer, each fed a message every
  // few hundred ms through Postfix meanwhile: each must resume on another node from Last-Event-ID,
  // with every message once and no gap.
  const client = createClient({ baseUrl: team.baseUrl, apiKey: team.apiKey, retry: { maxRetries: 5 } });
  const watched = await Promise.all(Array.from({ length: 4 }, () => client.inboxes.create()));
  const watchers = watched.map((inbox) => watch(client, inbox.id));
  const fed = new Map(watched.map((inbox) => [inbox.id, 0]));
  let feeding = true;
  const feeder = (async () => {
    for (let i = 0; feeding; i++) {
      const inbox = watched[i % watched.length]!;
      await relay().sendMail({ from: 'no-reply@app.test', to: inbox.address, subject: `watched ${i}`, text: `message ${i}` });
      fed.set(inbox.id, fed.get(inbox.id)! + 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  })();

  const relayedBefore = team.relayed();
  const restarts: string[] = [];
  /** Node restarts through which Postfix relayed nothing (the suite's mail should flow through the other node). */
  const quiet: string[] = [];
  for (const [k, step] of schedule.entries()) {
    const due = k * batchSize + batchSize / 2;
    await waitFor(async () => done || team.relayed() - relayedBefore >= due, `${due} of the suite's messages relayed`, 600_000);
    writeFileSync(join(out, `release-${k + 1}`), '');
    const at = team.relayed() - relayedBefore;
    phase = `restarting ${step} (step ${k + 1})`;
    // Each step ends once HAProxy sends to every node again, as a rolling restart does
    // before the next node (docs/team-service.md, "Upgrades by rolling restart").
    await (step === 'postgres' ? team.restartPostgres() : team.restartNode(Number(step.slice(5)) - 1)).catch(async (error: Error) => {
      throw new Error(`${error.message}\nafter restarting ${step}:\n${await team.nodeStates()}`);
    });
    const after = team.relayed() - relayedBefore;
    restarts.push(`${step} (relayed ${at} → ${after})${done ? ' (after the suite ended)' : ''}`);
    if (step !== 'postgres' && after === at) quiet.push(step);
  }
  writeFileSync(restartsDone, '');
  phase = 'after the restarts';
  feeding = false;
  await feeder;
  const code = await finished;
  const json = readFileSync(report, 'utf8');
  const stats = (JSON.parse(json) as { stats: { expected: number; unexpected: number; flaky: number; skipped: number } }).stats;
  // The first line of each failure's message (status, code and advice of an API error).
  const failures = [...json.matchAll(/"message": "((?:[^"\\]|\\.){0,400})/g)].map((m) => m[1]).slice(0, 5);
  rmSync(out, { recursive: true, force: true });
  expect(stats, `failures: ${failures.join('\n')}\nrestarts: ${restarts.join(', ')}\nthe suite's output:\n${output.slice(-3000)}`).toEqual({ ...stats, expected: SUITE_TESTS, unexpected: 0, flaky: 0 });
  expect(code).toBe(0);
  expect(restarts.filter((r) => r.includes('after the suite')), 'restarts should happen while the suite runs').toEqual([]);
  expect(quiet, `mail should flow through the other node while a node restarts: ${restarts.join(', ')}`).toEqual([]);
  await waitFor(async () => (await team.queued()) === 0, 'Postfix\'s queue to be empty');

  // Every watched stream delivered each of its inbox's messages once, in order, with no gap, and resumed at least once.
  for (const watcher of watchers) {
    const sent = fed.get(watcher.inboxId)!;
    await waitFor(async () => watcher.seqs.length >= sent, `the stream of ${watcher.inboxId} to deliver its ${sent} messages (it has ${watcher.seqs.length}, ${watcher.state()})`);
    const inbox = watched.find((w) => w.id === watcher.inboxId)!;
    const items = (await inbox.messages({ limit: 100 })).items;
    const stored = items.map((m) => m.seq).sort((a, b) => a - b);
    expect(stored, `every message sent to ${watcher.inboxId} was stored once${await twice(client, items)}`).toHaveLength(sent);
    expect(watcher.seqs, `the stream of ${watcher.inboxId}: every message once, in order (restarts: ${restarts.join(', ')})`).toEqual(stored);
    expect(watcher.connections(), `the stream of ${watcher.inboxId} should have resumed on another node`).toBeGreaterThan(1);
    watcher.close();
  }
  // Every node restart costs every stream at most half a second without a live connection: a
  // draining node hands its streams over (event: handover), and each client opens its next connection
  // through the balancer while the old one still delivers, switching once the next is live.
  const outages = watchers.flatMap((w) => w.outages.filter((o) => o.phase.startsWith('restarting node')).map((o) => ({ ...o, stream: w.inboxId })));
  const figures = { outages: byPhase(outages), switches: byPhase(watchers.flatMap((w) => w.switches)), delays: byPhase(watchers.flatMap((w) => w.delays)), handoverDelays: byPhase(watchers.flatMap((w) => w.handoverDelays)) };
  test.info().annotations.push({ type: 'stream figures (ms, by phase)', description: JSON.stringify(figures) });
  console.log(`the watched streams through the restarts (ms, by phase): ${JSON.stringify(figures)}`);
  for (const watcher of watchers) expect(watcher.switches.length, `the stream of ${watcher.inboxId} was handed over by a draining node`).toBeGreaterThan(0);
  expect(outages.filter((o) => o.ms > 500), `streams without a live connection for more than 0.5 s through a node's restart (every figure: ${JSON.stringify(figures.outages)})`).toEqual([]);
  await Promise.all(watchers.map((w) => w.done));
  await client.close();

  // Prometheus scraped every node, and HAProxy's own exporter; /metrics is not served through the public frontend.
  const up = await team.query('count_over_time(up{job="inboxkit"}[30m])');
  expect(up.map((s) => s.metric.instance).sort()).toEqual(team.nodeUrls.map((u) => u.slice('http://'.length)).sort());
  expect((await team.query('max_over_time(up{job="haproxy"}[30m])'))[0]?.value).toBe(1);
  expect((await team.query('max_over_time(haproxy_backend_active_servers{proxy="inboxkit_http"}[30m])'))[0]?.value).toBe(team.nodeUrls.length);
  const publicMetrics = await fetch(`${team.baseUrl}/metrics`);
  expect(publicMetrics.status).toBe(404);
  expect(await publicMetrics.text()).not.toContain('inboxkit_mail_accepted_total');

  // Over the whole run, restarts included, the mail Prometheus counted is what Postfix delivered (and what was sent directly).
  await waitFor(async () => (await team.query('sum(rate(inboxkit_mail_accepted_total[5s]))'))[0]?.value === 0, 'the counters to settle');
  const delivered = team.relayed() + sentDirectly;
  test.info().annotations.push({ type: 'mail delivered over the run', description: `${delivered} (Postfix ${team.relayed()}, directly ${sentDirectly})` });
  await waitFor(async () => (await acceptedOverRun()) === delivered, `Prometheus to count the ${delivered} messages delivered over the whole run`, 30_000).catch(async (error: Error) => {
    throw new Error(`${error.message}: it counts ${await acceptedOverRun()} (restarts: ${restarts.join(', ')})`);
  });
});

/**
 * The messages stored more than once (the feeder's subjects are unique), each copy with its seq,
 * time and node, and Postfix's log lines of its queue id: what a failure needs to say how a
 * message came twice.
 */
async function twice(client: InboxkitClient, items: Array<{ id: string; seq: number; subject: string | null; receivedAt: string }>): Promise<string> {
  const bySubject = new Map<string, typeof items>();
  for (const item of items) bySubject.set(item.subject ?? '', [...(bySubject.get(item.subject ?? '') ?? []), item]);
  const repeated = [...bySubject.entries()].filter(([, copies]) => copies.length > 1);
  if (repeated.length === 0) return '';
  const log = team.postfixLog(true).split('\n');
  const lines: string[] = [];
  for (const [subject, copies] of repeated) {
    lines.push(`"${subject}" stored ${copies.length} times: ${copies.map((c) => `seq ${c.seq} at ${c.receivedAt}`).join(', ')}`);
    const message = await client.messages.get(copies[0]!.id);
    const messageId = (message.headers['message-id'] ?? '').trim();
    const queueIds = new Set(log.filter((l) => messageId && l.includes(messageId)).map((l) => /: ([0-9A-F]{6,}):/.exec(l)?.[1]).filter(Boolean));
    lines.push(...log.filter((l) => [...queueIds].some((q) => l.includes(q!))));
  }
  return `\n${lines.join('\n')}`;
}

/**
 * `inboxkit_mail_accepted_total` summed over the whole run from Prometheus' raw samples: each
 * node's counter starts at 0 in each process, so a sample lower than the one before is a restart,
 * and the count before it is kept (what `increase()` does, without extrapolating).
 */
async function acceptedOverRun(): Promise<number> {
  const res = await fetch(`${team.prometheusUrl}/api/v1/query?query=${encodeURIComponent('inboxkit_mail_accepted_total[30m]')}`);
  const body = (await res.json()) as { data: { result: Array<{ values: Array<[number, string]> }> } };
  let total = 0;
  for (const series of body.data.result) {
    let previous = 0;
    for (const [, text] of series.values) {
      const value = Number(text);
      total += value >= previous ? value - previous : value;
      previous = value;
    }
  }
  return total;
}
