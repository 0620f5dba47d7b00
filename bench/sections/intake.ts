/**
 * Intake throughput: messages per second that reach a 250 reply, with 1, 4
 * and 16 senders on their own SMTP connections, for a 10 KB HTML email with
 * and without a 100 KB attachment, inboxkit and MailDev in the same run.
 * The server's CPU time per message is reported too: unlike msg/s, it hardly
 * depends on what else the machine is doing.
 *
 * @packageDocumentation
 */
import nodemailer from 'nodemailer';
import { createClient } from '../../src/client/index.ts';
import type { Host, HostStats } from '../lib/hosts.ts';
import { buildRaw, transactionalHtml } from '../lib/mail.ts';

/** One throughput measurement. */
export interface IntakeResult {
  target: 'inboxkit' | 'maildev';
  /** `10KB` or `10KB+100KB`. */
  message: string;
  senders: number;
  /** Messages per repetition. */
  messages: number;
  /** Repetitions (alternating with the peer); the figures are their medians. */
  repetitions: number;
  perSecond: number;
  /** Server CPU time per message, ms. */
  serverCpuMsPerMessage: number;
  /** msg/s of each repetition. */
  perSecondRuns: number[];
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
};

/** Sends `total` raw messages over `senders` connections; resolves with the elapsed seconds. */
async function blast(port: number, raw: Buffer, recipients: readonly string[], senders: number, total: number): Promise<number> {
  const transports = Array.from({ length: senders }, () =>
    nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity }),
  );
  try {
    // Open every connection before the clock starts.
    await Promise.all(transports.map((t) => t.sendMail({ envelope: { from: 'no-reply@example.test', to: [recipients[0] as string] }, raw })));
    let next = 0;
    const started = performance.now();
    await Promise.all(
      transports.map(async (t) => {
        while (next < total) {
          const i = next++;
          await t.sendMail({ envelope: { from: 'no-reply@example.test', to: [recipients[i % recipients.length] as string] }, raw });
        }
      }),
    );
    return (performance.now() - started) / 1000;
  } finally {
    for (const t of transports) t.close();
  }
}

/** Runs the throughput matrix against both servers. */
export async function runIntake(
  inboxkit: Host<{ apiUrl: string; smtpPort: number }>,
  maildev: Host<{ smtpPort: number }> | null,
  options: { small: number; large: number; repetitions: number; log: (line: string) => void },
): Promise<IntakeResult[]> {
  const html = transactionalHtml();
  const messages = [
    { name: '10KB', raw: await buildRaw({ from: 'no-reply@example.test', to: 'user@inboxkit.example.com', subject: 'Your receipt', html }), total: options.small },
    { name: '10KB+100KB', raw: await buildRaw({ from: 'no-reply@example.test', to: 'user@inboxkit.example.com', subject: 'Your invoice', html, attachmentBytes: 100 * 1024 }), total: options.large },
  ];
  // Mail goes round-robin to 32 inboxes, as a test suite's mail does (and no inbox reaches the 1,000-message cap).
  const client = createClient({ baseUrl: inboxkit.ready.apiUrl, retry: false });
  const inboxes = await Promise.all(Array.from({ length: 32 }, () => client.inboxes.create()));
  const inboxkitRecipients = inboxes.map((i) => i.address);
  const maildevRecipients = inboxkitRecipients.map((a) => a.replace(/@.*/, '@maildev.test'));
  const results: IntakeResult[] = [];
  const targets = [
    { name: 'inboxkit' as const, host: inboxkit as Host<{ smtpPort: number }>, recipients: inboxkitRecipients },
    ...(maildev ? [{ name: 'maildev' as const, host: maildev, recipients: maildevRecipients }] : []),
  ];
  try {
    for (const message of messages) {
      for (const senders of [1, 4, 16]) {
        options.log(`intake: ${message.name}, ${senders} sender(s), ${message.total} messages × ${options.repetitions}, ${targets.map((t) => t.name).join(' and ')} alternating`);
        const runs = new Map<string, Array<{ perSecond: number; cpu: number }>>();
        // Repetitions alternate between the servers, so that a change in the
        // machine's load weighs on both; the medians are reported.
        for (let r = 0; r < options.repetitions; r++) {
          for (const target of targets) {
            const before: HostStats = await target.host.stats();
            const seconds = await blast(target.host.ready.smtpPort, message.raw, target.recipients, senders, message.total);
            const after: HostStats = await target.host.stats();
            const list = runs.get(target.name) ?? [];
            list.push({ perSecond: message.total / seconds, cpu: (after.cpuMs - before.cpuMs) / (message.total + senders) });
            runs.set(target.name, list);
          }
        }
        for (const target of targets) {
          const list = runs.get(target.name) ?? [];
          results.push({
            target: target.name,
            message: message.name,
            senders,
            messages: message.total,
            repetitions: options.repetitions,
            perSecond: median(list.map((x) => x.perSecond)),
            serverCpuMsPerMessage: median(list.map((x) => x.cpu)),
            perSecondRuns: list.map((x) => Math.round(x.perSecond)),
          });
        }
      }
    }
  } finally {
    await Promise.all(inboxes.map((i) => i.delete().catch(() => {})));
    await client.close();
  }
  return results;
}
