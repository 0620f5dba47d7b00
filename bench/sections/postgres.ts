/**
 * SQLite beside PostgreSQL: intake throughput (4 pooled senders) and delivery
 * latency (SMTP send start → the message event on an open stream), for one
 * SQLite node, one PostgreSQL node, and two PostgreSQL nodes with the mail sent
 * to node A and the stream open on node B — the extra hop being the NOTIFY and
 * B's read of the message row. Servers run in this process from the sources.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { startServer } from '../../src/server/index.ts';
import type { RunningServer } from '../../src/server/index.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** One measured setup. */
export interface PostgresResult {
  setup: 'sqlite, 1 node' | 'postgres, 1 node' | 'postgres, 2 nodes (send to A, stream on B)';
  /** Messages per second stored with 4 pooled senders. */
  intakePerSecond: number;
  /** Send start → message event on the stream. */
  latency: LatencySummary;
}

const OPTIONS = { rateLimit: false as const, inboxTtlSeconds: null, maxMessagesPerInbox: null };

async function createInbox(apiUrl: string): Promise<{ id: string; address: string; token: string }> {
  const res = await fetch(`${apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return ((await res.json()) as { data: { id: string; address: string; token: string } }).data;
}

/** Opens a stream and calls `onSeq` for each message event. */
async function openStream(apiUrl: string, inbox: { id: string; token: string }, onSeq: (seq: number) => void): Promise<AbortController> {
  const controller = new AbortController();
  const res = await fetch(`${apiUrl}/inboxes/${inbox.id}/stream`, { headers: { 'x-inbox-token': inbox.token }, signal: controller.signal });
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const parser = createParser({
    onEvent(event) {
      if (event.event === 'ready') ready();
      if (event.event === 'message') onSeq((JSON.parse(event.data) as { seq: number }).seq);
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {}
  })();
  await isReady;
  return controller;
}

async function measure(sender: RunningServer, reader: RunningServer, samples: number, intakeMessages: number): Promise<{ intakePerSecond: number; latency: LatencySummary }> {
  const inbox = await createInbox(sender.apiUrl);
  const waiters = new Map<number, () => void>();
  const seen = new Set<number>();
  const stream = await openStream(reader.apiUrl, inbox, (seq) => {
    seen.add(seq);
    waiters.get(seq)?.();
  });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: sender.smtpPort, pool: true, maxConnections: 1, maxMessages: Infinity, ignoreTLS: true });
  const html = `<p>${'Your code is 123456. '.repeat(200)}</p>`;
  const latencies: number[] = [];
  try {
    for (let i = 1; i <= samples + 10; i++) {
      const arrived = seen.has(i) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(i, resolve));
      const start = performance.now();
      await transport.sendMail({ from: 'bench@example.test', to: inbox.address, subject: `latency ${i}`, html });
      await arrived;
      if (i > 10) latencies.push(performance.now() - start);
    }
    const senders = Array.from({ length: 4 }, () =>
      nodemailer.createTransport({ host: '127.0.0.1', port: sender.smtpPort, pool: true, maxConnections: 1, maxMessages: Infinity, ignoreTLS: true }),
    );
    const intakeInbox = await createInbox(sender.apiUrl);
    const started = performance.now();
    await Promise.all(
      senders.map(async (t, s) => {
        for (let i = 0; i < intakeMessages / 4; i++) await t.sendMail({ from: 'bench@example.test', to: intakeInbox.address, subject: `intake ${s}-${i}`, html });
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    for (const t of senders) t.close();
    return { intakePerSecond: intakeMessages / seconds, latency: summarize(latencies) };
  } finally {
    transport.close();
    stream.abort();
  }
}

/**
 * Runs the comparison; resolves with null (and says why) when no PostgreSQL URL is given.
 *
 * @param url - A PostgreSQL database the bench may create and drop a schema in.
 */
export async function runPostgres(url: string | null, options: { samples: number; intake: number; log: (line: string) => void }): Promise<PostgresResult[] | null> {
  if (!url) {
    options.log('postgres: skipped, no PostgreSQL to measure (set INBOXKIT_BENCH_POSTGRES_URL, e.g. from tests/support/postgres.sh start)');
    return null;
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  const results: PostgresResult[] = [];
  try {
    options.log(`postgres: sqlite, 1 node (${options.samples} samples, ${options.intake} messages)`);
    const sqlite = await startServer(OPTIONS);
    try {
      results.push({ setup: 'sqlite, 1 node', ...(await measure(sqlite, sqlite, options.samples, options.intake)) });
    } finally {
      await sqlite.close();
    }
    const [a, b] = await Promise.all([startServer({ db: scoped.toString(), ...OPTIONS }), startServer({ db: scoped.toString(), ...OPTIONS })]);
    try {
      options.log('postgres: postgres, 1 node');
      results.push({ setup: 'postgres, 1 node', ...(await measure(a, a, options.samples, options.intake)) });
      options.log('postgres: postgres, 2 nodes');
      results.push({ setup: 'postgres, 2 nodes (send to A, stream on B)', ...(await measure(a, b, options.samples, options.intake)) });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
    await admin.end();
  }
  return results;
}
