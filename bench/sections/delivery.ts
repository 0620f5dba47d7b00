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
}

const HTML = transactionalHtml();
const WARMUP = 20;

function transport(port: number, sender: 'pooled' | 'new-connection'): Transporter {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    ...(sender === 'pooled' ? { pool: true, maxConnections: 1, maxMessages: Infinity } : {}),
  });
}

/** Runs `count` samples, `concurrency` at a time, after `WARMUP` unmeasured ones. */
async function sample(count: number, concurrency: number, one: (i: number) => Promise<{ latency: number; ack: number }>) {
  for (let i = 0; i < WARMUP; i++) await one(-1 - i);
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

async function inboxkitWaits(client: InboxkitClient, port: number, sender: 'pooled' | 'new-connection', count: number) {
  const mailer = transport(port, sender);
  try {
    return await sample(count, 1, async (i) => {
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
    });
  } finally {
    mailer.close();
  }
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
  const mailer = transport(port, sender);
  try {
    return await sample(count, concurrency, async (i) => {
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

async function maildevWaits(maildev: MaildevHostReady, sender: 'pooled' | 'new-connection', count: number) {
  const socket = await connectSocketIo(maildev.webUrl);
  const mailer = transport(maildev.smtpPort, sender);
  let run = 0;
  try {
    run++;
    return await sample(count, 1, async (i) => {
      const to = `user-${run}-${i + WARMUP}-${sender}@maildev.test`;
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
      const latency = performance.now() - t0;
      return { latency, ack };
    });
  } finally {
    mailer.close();
    socket.close();
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
  const results: DeliveryResult[] = [];
  const delayedPort = inboxkit.ready.delayedSmtpPort;
  try {
    for (const sender of ['pooled', 'new-connection'] as const) {
      log(`delivery: inboxkit, ${sender}, no greeting delay`);
      results.push({ target: 'inboxkit', sender, greetingDelayMs: 0, concurrency: 1, ...(await inboxkitWaits(client, inboxkit.ready.smtpPort, sender, samples)) });
      if (delayedPort !== null) {
        log(`delivery: inboxkit, ${sender}, 100 ms greeting delay`);
        results.push({ target: 'inboxkit', sender, greetingDelayMs: 100, concurrency: 1, ...(await inboxkitWaits(client, delayedPort, sender, samples)) });
      }
      if (maildev) {
        log(`delivery: maildev (Socket.IO push), ${sender}`);
        results.push({ target: 'maildev', sender, greetingDelayMs: 100, concurrency: 1, ...(await maildevWaits(maildev.ready, sender, samples)) });
      }
      log(`delivery: 500 ms polling waiter against inboxkit, ${sender}`);
      results.push({
        target: 'poll-500ms', sender, greetingDelayMs: 0, concurrency: options.pollConcurrency,
        ...(await pollingWaits(client, inboxkit.ready.smtpPort, sender, samples, options.pollConcurrency)),
      });
    }
  } finally {
    await client.close();
  }
  return results;
}
