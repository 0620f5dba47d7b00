/**
 * Stream fan-out: 1,000 event streams open on one inbox (a dashboard, many
 * waiting tests), then messages sent one at a time; the push latency is from
 * the start of the SMTP send to each stream having the `message` event.
 *
 * The streams are read with a lean scanner on plain TCP sockets so that the
 * figure is the server's, not the load generator's: the benchmark process
 * reads 1,000 streams on one core and that is counted in the latency (with
 * `node:http` and a JSON parse per event it was busy about half of the
 * fan-out, at 12–20 µs per stream).
 *
 * @packageDocumentation
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import { createClient } from '../../src/client/index.ts';
import type { Host } from '../lib/hosts.ts';
import type { InboxkitHostReady } from '../hosts/inboxkit.ts';
import { nodemailerMessage, transactionalHtml } from '../lib/mail.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** Push latency to many streams. */
export interface FanoutResult {
  streams: number;
  messages: number;
  /** Send start → each stream has the event (streams × messages samples). */
  push: LatencySummary;
  /** Send start → the last stream has the event, per message. */
  lastStream: LatencySummary;
  /** Send start → the first stream has the event, per message (the intake and one push: the rest is fan-out). */
  firstStream: LatencySummary;
  /** Server V8 heap with the streams open minus before (after a full GC), per stream, KB. */
  heapPerStreamKb: number;
}

interface Reader {
  ready: Promise<void>;
  /** Seq (the event's `id`) → arrival time. */
  arrivals: Map<number, number>;
  /** Seq → subject, read from the event's data by the one reader that checks what it gets. */
  subjects: Map<number, string> | null;
  onArrival: (() => void) | null;
  close(): void;
}

/**
 * One stream over a plain TCP socket: the request written by hand, the
 * answer scanned for complete SSE events (`\n\n`-terminated; the chunk-size
 * lines between them are skipped, an event never spans two chunks and never
 * contains a blank line). A `message` event is recorded by its `id` (the seq);
 * the reader made with `check` also reads its data, so that the bench can
 * check that seq `n` is the message it sent.
 */
function openStream(url: URL, token: string, check: boolean): Reader {
  let markReady: () => void = () => {};
  let fail: (error: Error) => void = () => {};
  const reader: Reader = {
    ready: new Promise<void>((resolve, reject) => {
      markReady = resolve;
      fail = reject;
    }),
    arrivals: new Map(),
    subjects: check ? new Map() : null,
    onArrival: null,
    close: () => socket.destroy(),
  };
  const socket = net.connect(Number(url.port), url.hostname, () => {
    socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\nX-Inbox-Token: ${token}\r\n\r\n`);
  });
  socket.setNoDelay(true);
  let buffer = '';
  let head = true;
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    if (head) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (!buffer.startsWith('HTTP/1.1 200 ')) {
        fail(new Error(`bench: the stream answered ${buffer.slice(0, buffer.indexOf('\r\n'))}`));
        socket.destroy();
        return;
      }
      head = false;
      buffer = buffer.slice(end + 4);
    }
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.includes('event: ready')) markReady();
      else if (block.includes('event: message')) {
        const now = performance.now();
        const at = block.indexOf('\nid: ');
        const seq = Number.parseInt(block.slice(at + 5, block.indexOf('\n', at + 5)), 10);
        if (reader.subjects) reader.subjects.set(seq, (JSON.parse(block.slice(block.indexOf('\ndata: ') + 7)) as { subject: string }).subject);
        reader.arrivals.set(seq, now);
        reader.onArrival?.();
      }
    }
  });
  socket.on('error', (error) => fail(error));
  return reader;
}

/** Opens `streams` streams on one inbox and sends `messages` messages, one at a time. */
export async function runFanout(host: Host<InboxkitHostReady>, options: { streams: number; messages: number; log: (line: string) => void }): Promise<FanoutResult> {
  const client = createClient({ baseUrl: host.ready.apiUrl, retry: false });
  const inbox = await client.inboxes.create();
  const token = inbox.token;
  if (token === null) throw new Error("bench: the created inbox has no token");
  const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: host.ready.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
  const html = transactionalHtml();
  const readers: Reader[] = [];
  try {
    const before = await host.stats(true);
    options.log(`fan-out: opening ${options.streams} streams`);
    const url = new URL(`${host.ready.apiUrl}/inboxes/${inbox.id}/stream`);
    // Opened in batches so that the accept queue does not overflow.
    for (let i = 0; i < options.streams; i += 100) {
      const batch = Array.from({ length: Math.min(100, options.streams - i) }, (_, j) => openStream(url, token, i + j === 0));
      readers.push(...batch);
      await Promise.all(batch.map((r) => r.ready));
    }
    const during = await host.stats(true);
    options.log(`fan-out: ${options.messages} messages to ${options.streams} streams`);
    const push: number[] = [];
    const last: number[] = [];
    const first: number[] = [];
    /** Share of each send → last stream that the bench process itself was busy (the sender and the 1,000 readers), %. */
    const busy: number[] = [];
    // A new inbox: the messages take seqs 1, 2, 3… (checked against the subjects below).
    let seq = 0;
    for (let m = -2; m < options.messages; m++) {
      const subject = `Fan-out ${m}`;
      const expected = ++seq;
      let pending = readers.length;
      const all = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`bench: ${pending} of ${readers.length} streams did not get "${subject}" within 30 s`)), 30_000);
        for (const r of readers) {
          r.onArrival = () => {
            if (r.arrivals.has(expected)) {
              r.onArrival = null;
              if (--pending === 0) {
                clearTimeout(timer);
                resolve();
              }
            }
          };
        }
      });
      const t0 = performance.now();
      const elu0 = performance.eventLoopUtilization();
      await mailer.sendMail(nodemailerMessage({ from: 'no-reply@example.test', to: inbox.address, subject, html }));
      await all;
      const got = readers[0]?.subjects?.get(expected);
      if (got !== subject) throw new Error(`bench: the event with id ${expected} is "${got}", not the message sent ("${subject}")`);
      if (m < 0) continue;
      busy.push(performance.eventLoopUtilization(elu0).utilization * 100);
      const times = readers.map((r) => (r.arrivals.get(expected) as number) - t0);
      push.push(...times);
      last.push(Math.max(...times));
      first.push(Math.min(...times));
    }
    const firstStream = summarize(first);
    const lastStream = summarize(last);
    options.log(`fan-out: send start → first stream p50 ${firstStream.p50.toFixed(1)} ms, → last stream p50 ${lastStream.p50.toFixed(1)} ms; the bench process busy ${summarize(busy).p50.toFixed(0)} % of that time (p50)`);
    return {
      streams: options.streams,
      messages: options.messages,
      push: summarize(push),
      lastStream,
      firstStream,
      heapPerStreamKb: (during.heapUsed - before.heapUsed) / 1024 / options.streams,
    };
  } finally {
    for (const r of readers) r.close();
    mailer.close();
    await inbox.delete().catch(() => {});
    await client.close();
  }
}
