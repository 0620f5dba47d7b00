/**
 * From the last byte of DATA to the 250: what the server itself takes to
 * accept one message, with the sender's own cost left out. A raw-socket
 * sender keeps one connection per server open and sends a precomposed 10 KB
 * HTML email (CRLF, dot-stuffed) in one write after the 354; the clock runs
 * from that write to the 250 line. Samples alternate between the servers, so
 * that a change in the machine's load weighs on both.
 *
 * @packageDocumentation
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { createClient } from '../../src/client/index.ts';
import type { Host } from '../lib/hosts.ts';
import { buildRaw, transactionalHtml } from '../lib/mail.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** One server's figures. */
export interface DataReplyResult {
  target: 'inboxkit' | 'maildev';
  /** Bytes of the message sent after DATA. */
  bytes: number;
  latency: LatencySummary;
}

/** One SMTP connection that sends a command and reads its whole reply. */
class RawSmtp {
  private buffered = '';
  private waiting: ((reply: string) => void) | null = null;

  private readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      // A reply is complete at its last line: three digits and a space.
      const end = /(^|\r\n)\d{3} [^\r\n]*\r\n$/.exec(this.buffered);
      if (end && this.waiting) {
        const reply = this.buffered;
        this.buffered = '';
        const resolve = this.waiting;
        this.waiting = null;
        resolve(reply);
      }
    });
  }

  static async open(port: number): Promise<RawSmtp> {
    const socket = connect({ host: '127.0.0.1', port });
    const smtp = new RawSmtp(socket);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    await smtp.expect(null, '220');
    await smtp.expect('EHLO bench.example.test\r\n', '250');
    return smtp;
  }

  /** Writes `data` (when given) and resolves with the reply, which must start with `code`. */
  expect(data: string | Buffer | null, code: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.waiting = (reply) => (reply.startsWith(code) ? resolve(reply) : reject(new Error(`bench: expected ${code}, got ${reply.trim()}`)));
      if (data !== null) this.socket.write(data);
    });
  }

  close(): void {
    this.socket.end('QUIT\r\n');
  }
}

/** The message as it goes on the wire after the 354: CRLF line endings, dot-stuffed, with the terminator. */
function wireMessage(raw: Buffer): Buffer {
  const crlf = raw.toString('latin1').replace(/\r?\n/g, '\r\n');
  const body = crlf.endsWith('\r\n') ? crlf : `${crlf}\r\n`;
  return Buffer.from(`${body.replace(/^\./gm, '..')}.\r\n`, 'latin1');
}

/** Measures last byte of DATA → 250 on both servers, `samples` each, alternating. */
export async function runDataReply(
  inboxkit: Host<{ apiUrl: string; smtpPort: number }>,
  maildev: Host<{ smtpPort: number }> | null,
  options: { samples: number; log: (line: string) => void },
): Promise<DataReplyResult[]> {
  const raw = await buildRaw({ from: 'no-reply@example.test', to: 'user@inboxkit.example.com', subject: 'Your receipt', html: transactionalHtml() });
  const wire = wireMessage(raw);
  const client = createClient({ baseUrl: inboxkit.ready.apiUrl, retry: false });
  const inbox = await client.inboxes.create();
  const targets = [
    { name: 'inboxkit' as const, smtp: await RawSmtp.open(inboxkit.ready.smtpPort), to: inbox.address, samples: [] as number[] },
    ...(maildev ? [{ name: 'maildev' as const, smtp: await RawSmtp.open(maildev.ready.smtpPort), to: 'user@maildev.test', samples: [] as number[] }] : []),
  ];
  options.log(`intake: last byte of DATA → 250, ${options.samples} samples of ${wire.length} bytes, ${targets.map((t) => t.name).join(' and ')} alternating`);
  try {
    for (let i = 0; i < options.samples + 20; i++) {
      for (const target of targets) {
        await target.smtp.expect('MAIL FROM:<no-reply@example.test>\r\n', '250');
        await target.smtp.expect(`RCPT TO:<${target.to}>\r\n`, '250');
        await target.smtp.expect('DATA\r\n', '354');
        const sent = performance.now();
        await target.smtp.expect(wire, '250');
        // The first 20 warm both servers up and are not counted.
        if (i >= 20) target.samples.push(performance.now() - sent);
      }
    }
  } finally {
    for (const target of targets) target.smtp.close();
    await inbox.delete().catch(() => {});
    await client.close();
  }
  return targets.map((t) => ({ target: t.name, bytes: wire.length, latency: summarize(t.samples) }));
}
