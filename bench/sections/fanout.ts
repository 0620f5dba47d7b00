/**
 * Stream fan-out: 1,000 event streams open on one inbox (a dashboard, many
 * waiting tests), then messages sent one at a time; the push latency is from
 * the start of the SMTP send to each stream having the `message` event.
 *
 * The streams are read with a lean parser on plain `node:http` so that the
 * figure is the server's, not the load generator's: the benchmark process
 * parses 1,000 streams on one core and that is counted in the latency.
 *
 * @packageDocumentation
 */
import http from 'node:http';
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
  /** Subject → arrival time. */
  arrivals: Map<string, number>;
  onArrival: (() => void) | null;
  close(): void;
}

function openStream(agent: http.Agent, url: URL, token: string): Reader {
  let markReady: () => void = () => {};
  let fail: (error: Error) => void = () => {};
  const reader: Reader = {
    ready: new Promise<void>((resolve, reject) => {
      markReady = resolve;
      fail = reject;
    }),
    arrivals: new Map(),
    onArrival: null,
    close: () => request.destroy(),
  };
  const request = http.get(url, { agent, headers: { 'x-inbox-token': token, accept: 'text/event-stream' } }, (response) => {
    if (response.statusCode !== 200) {
      fail(new Error(`bench: the stream answered ${response.statusCode}`));
      response.resume();
      return;
    }
    response.setEncoding('utf8');
    let buffer = '';
    response.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.includes('event: ready')) markReady();
        else if (block.includes('event: message')) {
          const now = performance.now();
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data) reader.arrivals.set((JSON.parse(data) as { subject: string }).subject, now);
          reader.onArrival?.();
        }
      }
    });
  });
  request.on('error', (error) => fail(error));
  return reader;
}

/** Opens `streams` streams on one inbox and sends `messages` messages, one at a time. */
export async function runFanout(host: Host<InboxkitHostReady>, options: { streams: number; messages: number; log: (line: string) => void }): Promise<FanoutResult> {
  const client = createClient({ baseUrl: host.ready.apiUrl, retry: false });
  const inbox = await client.inboxes.create();
  const token = inbox.token;
  if (token === null) throw new Error("bench: the created inbox has no token");
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: host.ready.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
  const html = transactionalHtml();
  const readers: Reader[] = [];
  try {
    const before = await host.stats(true);
    options.log(`fan-out: opening ${options.streams} streams`);
    const url = new URL(`${host.ready.apiUrl}/inboxes/${inbox.id}/stream`);
    // Opened in batches so that the accept queue does not overflow.
    for (let i = 0; i < options.streams; i += 100) {
      const batch = Array.from({ length: Math.min(100, options.streams - i) }, () => openStream(agent, url, token));
      readers.push(...batch);
      await Promise.all(batch.map((r) => r.ready));
    }
    const during = await host.stats(true);
    options.log(`fan-out: ${options.messages} messages to ${options.streams} streams`);
    const push: number[] = [];
    const last: number[] = [];
    const first: number[] = [];
    for (let m = -2; m < options.messages; m++) {
      const subject = `Fan-out ${m}`;
      let pending = readers.length;
      const all = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`bench: ${pending} of ${readers.length} streams did not get "${subject}" within 30 s`)), 30_000);
        for (const r of readers) {
          r.onArrival = () => {
            if (r.arrivals.has(subject)) {
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
      await mailer.sendMail(nodemailerMessage({ from: 'no-reply@example.test', to: inbox.address, subject, html }));
      await all;
      if (m < 0) continue;
      const times = readers.map((r) => (r.arrivals.get(subject) as number) - t0);
      push.push(...times);
      last.push(Math.max(...times));
      first.push(Math.min(...times));
    }
    const firstStream = summarize(first);
    const lastStream = summarize(last);
    options.log(`fan-out: send start → first stream p50 ${firstStream.p50.toFixed(1)} ms, → last stream p50 ${lastStream.p50.toFixed(1)} ms`);
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
    agent.destroy();
    await inbox.delete().catch(() => {});
    await client.close();
  }
}
