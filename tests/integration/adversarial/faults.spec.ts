/**
 * Faults: the server killed (SIGKILL) during intake in file mode and restarted
 * on the same file; streams cut 100 times while mail arrives, resumed with
 * Last-Event-ID; a client whose socket stalls while mail pours in.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CreatedInbox, MessageSummary } from '../../../src/wire/schemas.ts';
import { spawnServe } from '../../support/serve.ts';
import { startTcpProxy } from '../../support/tcp-proxy.ts';
import type { Served } from '../../support/serve.ts';
import { RawSmtp, dataOf, expect, figure, openStream, rawMessage, sendRaw, sha256, startHarness, test } from './helpers.ts';


const children = new Set<ChildProcessWithoutNullStreams>();
test.afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
});

/** `inboxkit serve` on a database file, resolved once it prints INBOXKIT_READY. */
function serve(db: string): Promise<Served> {
  return spawnServe(['--db', db, '--rate-limit', 'off', '--log-level', 'error'], { onSpawn: (child) => children.add(child) });
}

test('@heavy the server killed with SIGKILL during intake in file mode loses no message that got a 250', async () => {
  test.setTimeout(180_000);
  const dir = await mkdtemp(join(tmpdir(), 'inboxkit-sigkill-'));
  try {
    const db = join(dir, 'inboxkit.db');
    let results = { acknowledged: 0, survived: 0, identical: 0, unacknowledged: 0, unacknowledgedStored: 0 };
    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      const { child, ready } = await serve(db);
      const created = await fetch(`${ready.apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const inbox = ((await created.json()) as { data: CreatedInbox }).data;

      const acked = new Map<string, string>();
      const unacked = new Set<string>();
      let killed = false;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const senders = Array.from({ length: 4 }, async (_, s) => {
        let smtp: RawSmtp;
        try {
          smtp = await RawSmtp.connect(ready.smtpPort);
          await smtp.hello();
        } catch {
          return;
        }
        for (let i = 0; !killed; i++) {
          const subject = `r${round}-s${s}-m${i}`;
          const raw = rawMessage({ to: inbox.address, subject, body: `${subject} ${'k'.repeat(2000)}` });
          try {
            if ((await smtp.command('MAIL FROM:<kill@adversary.test>')).code !== 250) break;
            if ((await smtp.command(`RCPT TO:<${inbox.address}>`)).code !== 250) break;
            if ((await smtp.command('DATA')).code !== 354) break;
            unacked.add(subject);
            smtp.write(dataOf(raw));
            const reply = await smtp.reply();
            if (reply.code === 250) {
              unacked.delete(subject);
              acked.set(subject, sha256(raw));
            }
          } catch {
            break; // the connection died with the server
          }
        }
        smtp.end();
      });
      // Kill once a good number of messages are acknowledged, mid-stream.
      await expect.poll(() => acked.size, { timeout: 60_000, intervals: [20] }).toBeGreaterThanOrEqual(60 + round * 20);
      killed = true;
      child.kill('SIGKILL');
      await exited;
      await Promise.all(senders);

      const restarted = await serve(db);
      const listed: MessageSummary[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const res = await fetch(`${restarted.ready.apiUrl}/inboxes/${inbox.id}/messages?limit=100${q}`, { headers: { 'x-inbox-token': inbox.token } });
        expect(res.status).toBe(200);
        const page = ((await res.json()) as { data: { items: MessageSummary[]; nextCursor: string | null } }).data;
        listed.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      const bySubject = new Map(listed.map((m) => [m.subject, m]));
      let identical = 0;
      for (const [subject, sha] of acked) {
        const m = bySubject.get(subject);
        expect(m, `${subject} got a 250 and must survive the SIGKILL`).toBeDefined();
        const raw = await fetch(`${restarted.ready.apiUrl}/messages/${m!.id}/raw`, { headers: { 'x-inbox-token': inbox.token } });
        if (sha256(Buffer.from(await raw.arrayBuffer())) === sha) identical++;
      }
      expect(identical).toBe(acked.size);
      // Seqs stay dense and unique after the restart.
      expect(new Set(listed.map((m) => m.seq)).size).toBe(listed.length);
      results = {
        acknowledged: results.acknowledged + acked.size,
        survived: results.survived + [...acked.keys()].filter((s) => bySubject.has(s)).length,
        identical: results.identical + identical,
        unacknowledged: results.unacknowledged + unacked.size,
        unacknowledgedStored: results.unacknowledgedStored + [...unacked].filter((s) => bySubject.has(s)).length,
      };
      restarted.child.kill('SIGKILL');
      await new Promise((r) => restarted.child.once('exit', r));
    }
    figure(
      'faults: SIGKILL',
      `${rounds} kills mid-intake on one database file: ${results.survived}/${results.acknowledged} acknowledged messages survived, ${results.identical}/${results.acknowledged} raw byte-identical; ${results.unacknowledged} in flight without a reply (${results.unacknowledgedStored} of them stored anyway)`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('@heavy a stream cut 100 times while mail arrives, resumed with Last-Event-ID, misses nothing and repeats nothing', async () => {
  test.setTimeout(300_000);
  const h = await startHarness({});
  const target = new URL(h.server.url);
  const proxy = await startTcpProxy(target);
  try {
    const inbox = await h.createInbox();
    const received: number[] = [];
    let lastId: string | null = null;
    let connections = 0;
    /** The number of the connection whose replay is done and which is live, if any. */
    let live: number | null = null;
    const trace: string[] = [];
    let stop = false;
    const consumer = (async () => {
      while (!stop) {
        const abort = new AbortController();
        let id = 0;
        try {
          const headers: Record<string, string> = { 'x-inbox-token': inbox.token };
          if (lastId !== null) headers['last-event-id'] = lastId;
          const { status, events } = await openStream(`${proxy.url}/api/v1/inboxes/${inbox.id}/stream`, headers, abort.signal);
          expect(status).toBe(200);
          id = ++connections;
          for await (const e of events) {
            if ('comment' in e) continue;
            // As EventSource does: any event with an id (ready carries the inbox's last seq) moves the resume point.
            if (e.id !== null) lastId = e.id;
            if (e.event === 'ready') {
              live = id;
              trace.push(`#${id} ready ${e.data} after sending Last-Event-ID ${headers['last-event-id']}`);
            }
            if (e.event === 'message') {
              received.push(Number(e.id));
            }
            if (stop) break;
          }
        } catch (error) {
          // cut: reconnect at once
          trace.push(`#${id} ended: ${String(error)}`);
        } finally {
          if (live === id) live = null;
          abort.abort();
        }
      }
    })();

    let sent = 0;
    let sending = true;
    const sender = (async () => {
      const smtp = await RawSmtp.connect(h.server.smtpPort);
      await smtp.hello();
      while (sending) {
        await smtp.command('MAIL FROM:<cut@adversary.test>');
        await smtp.command(`RCPT TO:<${inbox.address}>`);
        await smtp.command('DATA');
        smtp.write(dataOf(rawMessage({ to: inbox.address, subject: `cut-${sent}` })));
        expect((await smtp.reply()).code).toBe(250);
        sent++;
      }
      smtp.end();
    })();

    let cuts = 0;
    let lastCut = 0;
    let messagesAtCuts = 0;
    while (cuts < 100) {
      // Cut only a new live connection (its replay done), after letting a little mail through.
      await expect.poll(() => live !== null && live > lastCut, { timeout: 30_000, intervals: [2] }).toBe(true);
      const victim = live!;
      await new Promise((r) => setTimeout(r, Math.random() * 30));
      expect(live).toBe(victim);
      messagesAtCuts = received.length;
      lastCut = victim;
      proxy.cut();
      cuts++;
    }
    sending = false;
    await sender;
    try {
      await expect.poll(() => received.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(sent);
    } catch (error) {
      const have = new Set(received);
      const missing = Array.from({ length: sent }, (_, i) => i + 1).filter((n) => !have.has(n));
      console.log('consumer state', { connections, live, lastId, sent, received: received.length, missing, trace: trace.slice(-6) });
      throw error;
    }
    stop = true;
    proxy.cut();
    await consumer;
    expect(received).toEqual(Array.from({ length: sent }, (_, i) => i + 1));
    figure('faults: stream cuts', `${cuts} cuts of a live stream (${connections} connections; ${messagesAtCuts} messages had arrived by the last cut) while ${sent} messages arrived: ${received.length}/${sent} received, 0 missed, 0 repeated, in seq order`);
  } finally {
    await proxy.close();
    await h.close();
  }
});

test('@heavy a stream client whose socket stalls does not slow intake or the other streams', async () => {
  test.setTimeout(300_000);
  const h = await startHarness({ streamMaxBufferedBytes: 64 * 1024 });
  try {
    const inbox = await h.createInbox();
    const target = new URL(h.server.url);
    // The stalled client: asks for the stream, then never reads.
    const stalled = net.connect({ host: target.hostname, port: Number(target.port) });
    await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
    stalled.write(`GET /api/v1/inboxes/${inbox.id}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Inbox-Token: ${inbox.token}\r\n\r\n`);
    stalled.pause();
    let stalledClosed = false;
    stalled.on('close', () => (stalledClosed = true));
    stalled.on('error', () => {});

    // Five healthy readers of the same inbox.
    const abort = new AbortController();
    const arrivals: Array<Map<number, number>> = [];
    const readers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const got = new Map<number, number>();
        arrivals.push(got);
        const { events } = await openStream(`${h.server.apiUrl}/inboxes/${inbox.id}/stream`, { 'x-inbox-token': inbox.token }, abort.signal);
        return {
          done: (async () => {
            for await (const e of events) if (!('comment' in e) && e.event === 'message') got.set(Number(e.id), performance.now());
          })(),
        };
      }),
    );

    // Big subjects make big events, so the stalled connection's buffers fill.
    const COUNT = 900;
    const acceptedAt = new Map<number, number>();
    const smtp = await RawSmtp.connect(h.server.smtpPort);
    await smtp.hello();
    const started = performance.now();
    for (let i = 1; i <= COUNT; i++) {
      await smtp.command('MAIL FROM:<stall@adversary.test>');
      await smtp.command(`RCPT TO:<${inbox.address}>`);
      await smtp.command('DATA');
      smtp.write(dataOf(rawMessage({ to: inbox.address, subject: `stall-${i} ${'s'.repeat(8000)}` })));
      expect((await smtp.reply()).code).toBe(250);
      acceptedAt.set(i, performance.now());
    }
    const intakeMs = performance.now() - started;
    smtp.end();
    await expect.poll(() => arrivals.every((a) => a.size === COUNT), { timeout: 60_000 }).toBe(true);
    // The server dropped the stalled connection (a paused socket cannot see the close until it reads).
    await expect.poll(() => h.logs.filter((l) => /too slow/.test(String(l.msg))).length, { timeout: 30_000 }).toBe(1);
    let stalledBytes = 0;
    stalled.on('data', (d: Buffer) => (stalledBytes += d.byteLength));
    stalled.resume();
    await expect.poll(() => stalledClosed, { timeout: 30_000 }).toBe(true);
    const latencies = arrivals.flatMap((a) => [...a].map(([seq, at]) => at - acceptedAt.get(seq)!)).sort((a, b) => a - b);
    abort.abort();
    await Promise.allSettled(readers.map((r) => r.done));
    // A control message after all that: intake still answers at once.
    expect((await sendRaw(h.server.smtpPort, 'a@adversary.test', [inbox.address], rawMessage({ to: inbox.address, subject: 'after' }))).code).toBe(250);
    figure(
      'faults: stalled client',
      `a client that never reads was dropped at the 64 KB bound (it had been sent ${(stalledBytes / 1024 / 1024).toFixed(1)} MB of ${((COUNT * 8300) / 1024 / 1024).toFixed(1)} MB); meanwhile ${COUNT} messages (8 KB subjects) were accepted in ${(intakeMs / 1000).toFixed(1)} s and 5/5 other streams received ${COUNT}/${COUNT}; delivery latency after the 250: p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms`,
    );
  } finally {
    await h.close();
  }
});
