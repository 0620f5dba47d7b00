/**
 * IMAP IDLE against the event stream (issue 46): from the start of an SMTP
 * send to an IDLE client holding `* N EXISTS`, beside the same send to an
 * open event stream holding the `message` event. Both are pushed from the
 * same live delivery, so the target is the same p50 within 2 ms.
 *
 * The IDLE client is a lean raw-socket reader (not an IMAP library), so the
 * figure is the server's.
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

/** The two push paths, from send start. */
export interface ImapIdleResult {
  /** Send start → the IDLE client has `* N EXISTS`. */
  idle: LatencySummary;
  /** Send start → the open event stream has the `message` event. */
  sse: LatencySummary;
  /** Send start → the sender has the 250 (of the IDLE samples). */
  smtpAck: LatencySummary;
}

const HTML = transactionalHtml();
const WARMUP = 20;

/** A logged-in IMAP connection in IDLE; `exists()` resolves when the next `* N EXISTS` arrives. */
async function idleClient(port: number, address: string, token: string) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let buffer = '';
  let waiting: { match: RegExp; resolve: () => void } | null = null;
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    if (waiting && waiting.match.test(buffer)) {
      const w = waiting;
      waiting = null;
      buffer = '';
      w.resolve();
    }
  });
  const until = (match: RegExp) =>
    new Promise<void>((resolve) => {
      if (match.test(buffer)) {
        buffer = '';
        resolve();
      } else waiting = { match, resolve };
    });
  await until(/^\* OK .*\r\n/m);
  socket.write(`a1 LOGIN ${address} ${token}\r\na2 SELECT INBOX\r\n`);
  await until(/^a2 OK .*\r\n/m);
  socket.write('a3 IDLE\r\n');
  await until(/^\+ idling\r\n/m);
  return { exists: () => until(/^\* \d+ EXISTS\r\n/m), close: () => socket.destroy() };
}

/** Measures both paths, one sample of each in turn, after a warm-up. */
export async function runImapIdle(host: Host<InboxkitHostReady>, options: { samples: number; log: (line: string) => void }): Promise<ImapIdleResult> {
  const imapPort = host.ready.imapPort;
  if (!imapPort) throw new Error('bench: the inboxkit host was started without IMAP (config.imap)');
  options.log(`imap: ${options.samples} sends to an IDLE client and to an event stream, interleaved`);
  const client = createClient({ baseUrl: host.ready.url });
  const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: host.ready.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity });
  const idle: number[] = [];
  const sse: number[] = [];
  const ack: number[] = [];
  try {
    for (let i = -WARMUP; i < options.samples; i++) {
      const inbox = await client.inboxes.create();
      const subject = `Confirm your address ${i}`;
      if (!inbox.token) throw new Error('bench: a new inbox came without its token');
      const imap = await idleClient(imapPort, inbox.address, inbox.token);
      const exists = imap.exists();
      const t0 = performance.now();
      const acked = mailer.sendMail(nodemailerMessage({ from: 'no-reply@example.test', to: inbox.address, subject, html: HTML })).then(() => performance.now() - t0);
      await exists;
      const idleMs = performance.now() - t0;
      const ackMs = await acked;
      imap.close();

      const stream = inbox.stream();
      const events = stream[Symbol.asyncIterator]();
      const first = await events.next();
      if (first.done || first.value.type !== 'ready') throw new Error('bench: the stream did not start with "ready"');
      const t1 = performance.now();
      const sent = mailer.sendMail(nodemailerMessage({ from: 'no-reply@example.test', to: inbox.address, subject: `${subject} (stream)`, html: HTML }));
      for (;;) {
        const next = await events.next();
        if (next.done) throw new Error('bench: the stream ended before the message');
        if (next.value.type === 'message') break;
      }
      const sseMs = performance.now() - t1;
      await sent;
      await events.return?.();
      await inbox.delete();
      if (i < 0) continue;
      idle.push(idleMs);
      sse.push(sseMs);
      ack.push(ackMs);
    }
  } finally {
    mailer.close();
  }
  return { idle: summarize(idle), sse: summarize(sse), smtpAck: summarize(ack) };
}
