/**
 * Delivery latency: from the start of an SMTP send to the waiter holding the
 * full message, for inboxkit's `waitForMessage`, MailDev's Socket.IO push and
 * a 500 ms polling waiter (the interval of common Mailpit and Mailosaur
 * helpers, simulated against inboxkit's list endpoint).
 *
 * @packageDocumentation
 */
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { createClient } from '../../src/client/index.ts';
import type { InboxHandle, InboxkitClient } from '../../src/client/index.ts';
import type { Host } from '../lib/hosts.ts';
import type { InboxkitHostReady } from '../hosts/inboxkit.ts';
import type { MaildevHostReady } from '../hosts/maildev.ts';
import { nodemailerMessage, transactionalHtml } from '../lib/mail.ts';
import { connectSocketIo } from '../lib/socketio.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** One measured way of waiting for an email. */
export interface DeliveryResult {
  /** `inboxkit`, `maildev` or `poll-500ms`. */
  target: string;
  /** `pooled` or `new-connection`. */
  sender: 'pooled' | 'new-connection';
  /** smtp-server's early-talker wait before the greeting, in ms. */
  greetingDelayMs: number;
  /** Send start → the waiter has the full message. */
  latency: LatencySummary;
  /** Send start → the sender has the 250 reply. */
  smtpAck: LatencySummary;
  /** Waits run at the same time (1: one after another). */
  concurrency: number;
  /** Phases of the scenario, where it measures them (ms). */
  phases?: Record<string, LatencySummary>;
}

const HTML = transactionalHtml();
const WARMUP = 20;

function transport(port: number, sender: 'pooled' | 'new-connection', connections = 1): Transporter {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    ...(sender === 'pooled' ? { pool: true, maxConnections: connections, maxMessages: Infinity } : {}),
  });
}

/** One measured sample: send start → waiter done, and → SMTP 250. */
interface Sample {
  latency: number;
  ack: number;
  /** Durations of phases of this sample (ms), by name. */
  phases?: Record<string, number>;
}

/** A way of waiting, measured one sample at a time. */
interface Scenario {
  target: string;
  sender: 'pooled' | 'new-connection';
  greetingDelayMs: number;
  one(i: number): Promise<Sample>;
  close(): Promise<void> | void;
}

/**
 * Runs the scenarios round-robin, one sample of each in turn, after `WARMUP`
 * unmeasured rounds: a change in the machine's load over the run (other
 * processes) then weighs on every scenario alike instead of on whichever ran
 * at that moment.
 */
async function interleaved(scenarios: Scenario[], count: number): Promise<DeliveryResult[]> {
  const samples = scenarios.map(() => ({ latency: [] as number[], ack: [] as number[], phases: new Map<string, number[]>() }));
  for (let i = -WARMUP; i < count; i++) {
    for (const [k, scenario] of scenarios.entries()) {
      const { latency, ack, phases } = await scenario.one(i);
      const into = samples[k];
      if (i < 0 || !into) continue;
      into.latency.push(latency);
      into.ack.push(ack);
      for (const [name, ms] of Object.entries(phases ?? {})) into.phases.set(name, [...(into.phases.get(name) ?? []), ms]);
    }
  }
  return scenarios.map((s, k) => {
    const phases = samples[k]?.phases ?? new Map<string, number[]>();
    return {
      target: s.target,
      sender: s.sender,
      greetingDelayMs: s.greetingDelayMs,
      concurrency: 1,
      latency: summarize(samples[k]?.latency ?? []),
      smtpAck: summarize(samples[k]?.ack ?? []),
      ...(phases.size > 0 ? { phases: Object.fromEntries([...phases].map(([name, values]) => [name, summarize(values)])) } : {}),
    };
  });
}

/** `waitForMessage` on a fresh inbox per sample, as a test does. */
function inboxkitScenario(client: InboxkitClient, port: number, sender: 'pooled' | 'new-connection', greetingDelayMs: number): Scenario {
  const mailer = transport(port, sender);
  return {
    target: 'inboxkit',
    sender,
    greetingDelayMs,
    async one(i) {
      const inbox = await client.inboxes.create();
      const subject = `Confirm your address ${i}`;
      const t0 = performance.now();
      const waiting = inbox.waitForMessage({ subject }, { timeout: 10_000 });
      await mailer.sendMail(nodemailerMessage({ from: 'no-reply@example.test', to: inbox.address, subject, html: HTML }));
      const ack = performance.now() - t0;
      const message = await waiting;
      const latency = performance.now() - t0;
      if (message.subject !== subject) throw new Error(`bench: waited for ${subject}, got ${message.subject}`);
      await inbox.delete();
      return { latency, ack };
    },
    close: () => mailer.close(),
  };
}

/**
 * inboxkit the way the MailDev waiter works: an event stream (of summaries)
 * opened before the send (not timed), then the message read once its event
 * arrives. Shows what `waitForMessage` adds (opening its own stream, which
 * carries the whole message) and, against the `ack` column, what a read costs
 * (the message was stored complete at intake: every read is the same).
 */
function inboxkitOpenStreamScenario(client: InboxkitClient, port: number): Scenario {
  const mailer = transport(port, 'pooled');
  return {
    target: 'inboxkit-open-stream',
    sender: 'pooled',
    greetingDelayMs: 0,
    async one(i) {
      const inbox = await client.inboxes.create();
      const subject = `Confirm your address ${i}`;
      const stream = inbox.stream();
      const events = stream[Symbol.asyncIterator]();
      const first = await events.next();
      if (first.done || first.value.type !== 'ready') throw new Error('bench: the stream did not start with "ready"');
      const t0 = performance.now();
      let ack = Number.NaN;
      const sending = mailer
        .sendMail(nodemailerMessage({ from: 'no-reply@example.test', to: inbox.address, subject, html: HTML }))
        .then(() => (ack = performance.now() - t0));
      let id: string | null = null;
      while (id === null) {
        const next = await events.next();
        if (next.done) throw new Error('bench: the stream ended before the message');
        if (next.value.type === 'message' && next.value.message.subject === subject) id = next.value.message.id;
      }
      const event = performance.now() - t0;
      await inbox.message(id);
      const latency = performance.now() - t0;
      await sending;
      // Read again: the same work as the first read (nothing is computed on read any more).
      const t1 = performance.now();
      await inbox.message(id);
      const cachedRead = performance.now() - t1;
      stream.close();
      await inbox.delete();
      return { latency, ack, phases: { 'send → stream event': event, 'read (GET /messages/{id})': latency - event, 'second read': cachedRead } };
    },
    close: () => mailer.close(),
  };
}

/** MailDev's Socket.IO `newMail` event on a connection opened once, then the email read over its REST API. */
async function maildevScenario(maildev: MaildevHostReady, sender: 'pooled' | 'new-connection'): Promise<Scenario> {
  const socket = await connectSocketIo(maildev.webUrl);
  const mailer = transport(maildev.smtpPort, sender);
  return {
    target: 'maildev',
    sender,
    greetingDelayMs: 100,
    async one(i) {
      const to = `user-${i + WARMUP}-${sender}@maildev.test`;
      const subject = `Confirm your address ${i}`;
      const t0 = performance.now();
      const waiting = new Promise<string>((resolve) => {
        const off = socket.on('newMail', (payload) => {
          const mail = payload as { id: string; subject: string; to?: Array<{ address: string }> };
          if (mail.subject === subject && mail.to?.some((r) => r.address === to)) {
            off();
            resolve(mail.id);
          }
        });
      });
      await mailer.sendMail(nodemailerMessage({ from: 'no-reply@example.test', to, subject, html: HTML }));
      const ack = performance.now() - t0;
      const id = await waiting;
      // The full email, as waitForMessage hands over the full message.
      const response = await fetch(`${maildev.webUrl}/api/email/${id}`);
      if (!response.ok) throw new Error(`bench: MailDev answered ${response.status} for email ${id}`);
      await response.json();
      return { latency: performance.now() - t0, ack };
    },
    close() {
      mailer.close();
      socket.close();
    },
  };
}

/** Runs `count` samples, `concurrency` at a time (polling waiters sleep 500 ms between polls, so they barely load the machine). */
async function concurrent(count: number, concurrency: number, one: (i: number) => Promise<Sample>) {
  const latencies: number[] = [];
  const acks: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const { latency, ack } = await one(i);
        latencies.push(latency);
        acks.push(ack);
      }
    }),
  );
  return { latency: summarize(latencies), smtpAck: summarize(acks) };
}

/** A waiter that lists the inbox every `intervalMs` until the message is there, then reads it. */
async function pollFor(inbox: InboxHandle, subject: string, intervalMs: number): Promise<void> {
  for (;;) {
    const page = await inbox.messages({ limit: 20 });
    const found = page.items.find((m) => m.subject === subject);
    if (found) {
      await inbox.message(found.id);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

async function pollingWaits(client: InboxkitClient, port: number, sender: 'pooled' | 'new-connection', count: number, concurrency: number) {
  // One pooled connection per concurrent waiter, so that sends do not queue behind each other.
  const mailer = transport(port, sender, concurrency);
  try {
    return await concurrent(count, concurrency, async (i) => {
      const inbox = await client.inboxes.create();
      const subject = `Confirm your address ${i}`;
      const t0 = performance.now();
      const waiting = pollFor(inbox, subject, 500);
      await mailer.sendMail(nodemailerMessage({ from: 'no-reply@example.test', to: inbox.address, subject, html: HTML }));
      const ack = performance.now() - t0;
      await waiting;
      const latency = performance.now() - t0;
      await inbox.delete();
      return { latency, ack };
    });
  } finally {
    mailer.close();
  }
}

/** Runs every delivery scenario. */
export async function runDelivery(
  inboxkit: Host<InboxkitHostReady>,
  maildev: Host<MaildevHostReady> | null,
  options: { samples: number; pollConcurrency: number; log: (line: string) => void },
): Promise<DeliveryResult[]> {
  const { samples, log } = options;
  const client = createClient({ baseUrl: inboxkit.ready.apiUrl, retry: false });
  const delayedPort = inboxkit.ready.delayedSmtpPort;
  const scenarios: Scenario[] = [];
  try {
    for (const sender of ['pooled', 'new-connection'] as const) {
      scenarios.push(inboxkitScenario(client, inboxkit.ready.smtpPort, sender, 0));
      if (delayedPort !== null) scenarios.push(inboxkitScenario(client, delayedPort, sender, 100));
      if (maildev) scenarios.push(await maildevScenario(maildev.ready, sender));
    }
    scenarios.push(inboxkitOpenStreamScenario(client, inboxkit.ready.smtpPort));
    log(`delivery: ${scenarios.length} push scenarios, ${samples} samples each, interleaved`);
    const results = await interleaved(scenarios, samples);
    for (const sender of ['pooled', 'new-connection'] as const) {
      log(`delivery: 500 ms polling waiter against inboxkit, ${sender}, ${options.pollConcurrency} at once`);
      results.push({
        target: 'poll-500ms', sender, greetingDelayMs: 0, concurrency: options.pollConcurrency,
        ...(await pollingWaits(client, inboxkit.ready.smtpPort, sender, samples, options.pollConcurrency)),
      });
    }
    return results;
  } finally {
    for (const s of scenarios) await s.close();
    await client.close();
  }
}
