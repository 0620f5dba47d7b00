/**
 * The email checks per message (issue 30): the spam check through the local
 * service and its scanner (SpamAssassin's spamd, and Rspamd when one is
 * given), sender authentication with mailauth against a test DNS, and the
 * content rules, each timed from the client's call to its answer, on DKIM-signed
 * HTML emails of about 10 KB sent over real SMTP.
 *
 * Scanners are found through INBOXKIT_BENCH_SPAMD_URL (or INBOXKIT_TEST_SPAMD_URL,
 * which .ci/run exports) and INBOXKIT_BENCH_RSPAMD_URL; a row without its
 * scanner says so.
 *
 * @packageDocumentation
 */
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import { createClient } from '../../src/client/index.ts';
import type { ReceivedMessage } from '../../src/client/index.ts';
import { startServer } from '../../src/server/index.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** One measured check. */
export interface CheckTiming {
  /** What was timed, e.g. `spam check (spamassassin)`. */
  check: string;
  /** Time per message from the call to its answer, ms; null when it could not run. */
  perMessage: LatencySummary | null;
  /** The scanner's own time (spam checks only), ms. */
  scanner: LatencySummary | null;
  /** Why it did not run, or a note. */
  note: string;
}

/** What the section measured. */
export interface ChecksResult {
  messages: number;
  timings: CheckTiming[];
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await fn();
  return [performance.now() - started, value];
}

async function spamRow(url: string | null, label: string, messages: readonly string[], send: (server: { smtpHost: string; smtpPort: number }) => Promise<ReceivedMessage[]>): Promise<CheckTiming> {
  if (url === null) return { check: `spam check (${label})`, perMessage: null, scanner: null, note: `skipped: no ${label} URL (see bench/sections/checks.ts)` };
  const server = await startServer({ spamCheck: url, spamCheckTimeoutMs: 30_000 });
  try {
    const received = await send(server);
    const calls: number[] = [];
    const scans: number[] = [];
    for (const [i, message] of received.entries()) {
      const [ms, result] = await time(() => message.spamCheck());
      if (i >= 3) {
        calls.push(ms);
        scans.push(result.durationMs);
      }
    }
    return { check: `spam check (${label})`, perMessage: summarize(calls), scanner: summarize(scans), note: `${messages.length - 3} messages after 3 warm-up` };
  } finally {
    await server.close();
  }
}

/** Runs the section: `count` messages per row (the first 3 of each unmeasured). */
export async function runChecks(options: { count: number; log: (line: string) => void }): Promise<ChecksResult> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dkim = { domainName: 'acme.example', keySelector: 'bench', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  const dns = {
    'bench._domainkey.acme.example': `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
    'acme.example': 'v=spf1 ip4:127.0.0.1 -all',
    '_dmarc.acme.example': 'v=DMARC1; p=reject',
  };
  const subjects = Array.from({ length: options.count }, (_, i) => `Your receipt ${i}`);
  const paragraph = '<p style="margin:0 0 16px 0;font-size:16px;line-height:24px;color:#1A2B3C;">Thanks for your order. Your receipt is below; keep it for your records. Questions? Reply to this email.</p>';
  const html = `<html><body><table role="presentation" width="100%"><tr><td>${paragraph.repeat(50)}<a href="https://acme.example/orders">Your orders</a></td></tr></table></body></html>`;
  const send = async (server: { smtpHost: string; smtpPort: number; url?: string }): Promise<ReceivedMessage[]> => {
    const client = createClient({ baseUrl: (server as { url: string }).url });
    const inbox = await client.inboxes.create();
    const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true, dkim });
    for (const subject of subjects) await transport.sendMail({ from: 'Acme <orders@acme.example>', to: inbox.address, subject, html, text: 'Thanks for your order.' });
    transport.close();
    return Promise.all(subjects.map((subject) => inbox.waitForMessage({ subject }, { timeout: 30_000 })));
  };
  options.log(`checks: ${options.count} DKIM-signed 10 KB emails per row`);
  const timings: CheckTiming[] = [];
  const spamd = process.env.INBOXKIT_BENCH_SPAMD_URL?.trim() || process.env.INBOXKIT_TEST_SPAMD_URL?.trim() || null;
  timings.push(await spamRow(spamd, 'spamassassin', subjects, send));
  timings.push(await spamRow(process.env.INBOXKIT_BENCH_RSPAMD_URL?.trim() || null, 'rspamd', subjects, send));
  const server = await startServer({});
  try {
    const received = await send(server);
    for (const [check, run] of [
      ['authentication (mailauth, test DNS)', (m: ReceivedMessage) => m.authentication({ dns })],
      ['content rules', (m: ReceivedMessage) => m.contentChecks()],
    ] as const) {
      const samples: number[] = [];
      for (const [i, message] of received.entries()) {
        const [ms] = await time(() => run(message) as Promise<unknown>);
        if (i >= 3) samples.push(ms);
      }
      timings.push({ check, perMessage: summarize(samples), scanner: null, note: `${received.length - 3} messages after 3 warm-up; raw source fetched each time` });
    }
  } finally {
    await server.close();
  }
  return { messages: options.count, timings };
}
