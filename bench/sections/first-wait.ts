/**
 * First wait after start: a fresh `inboxkit serve`, then at once an inbox, one
 * email over SMTP and `waitForMessage` for it through the client, as the first
 * test of a run does. Measured from the SMTP send's start to the message in
 * hand, for the first wait and for a second one right after (what every later
 * wait costs), so any warm-up left for the first wait shows as the difference.
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { createClient } from '../../src/client/index.ts';
import { buildRaw, transactionalHtml } from '../lib/mail.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** First and second wait after a start, over `runs` starts. */
export interface FirstWaitResult {
  command: string;
  first: LatencySummary;
  second: LatencySummary;
}

/** Sends one 10 KB HTML email and waits for it; ms from the send's start to the whole message. */
async function oneWait(apiUrl: string, smtpPort: number, subject: string): Promise<number> {
  const client = createClient({ baseUrl: apiUrl, retry: false });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
  try {
    const inbox = await client.inboxes.create();
    const raw = await buildRaw({ from: 'Acme <no-reply@acme.example>', to: inbox.address, subject, html: transactionalHtml() });
    const t0 = performance.now();
    const [message] = await Promise.all([inbox.waitForMessage({ subject }, { timeout: 30_000 }), transport.sendMail({ envelope: { from: 'no-reply@acme.example', to: [inbox.address] }, raw })]);
    const ms = performance.now() - t0;
    if (message.html === null) throw new Error('bench: the first wait returned a message without its HTML');
    return ms;
  } finally {
    transport.close();
    await client.close();
  }
}

/** Starts `node <args>` (an `inboxkit serve --port 0 --smtp-port 0`), measures the first and the second wait, stops it. */
async function once(args: string[]): Promise<{ first: number; second: number }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: fileURLToPath(new URL('../..', import.meta.url)) });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const ready = await new Promise<{ url: string; smtpPort: number }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = /INBOXKIT_READY (\{.*\})/.exec(out);
        if (line) resolve(JSON.parse(line[1] as string) as { url: string; smtpPort: number });
      });
      child.once('exit', (code) => reject(new Error(`bench: ${args.join(' ')} exited with ${code}:\n${out}`)));
    });
    const first = await oneWait(ready.url, ready.smtpPort, 'First wait');
    const second = await oneWait(ready.url, ready.smtpPort, 'Second wait');
    return { first, second };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** The first wait after start, `runs` times, with the compiled CLI in `build`. */
export async function runFirstWait(options: { runs: number; build: string; log: (line: string) => void }): Promise<FirstWaitResult> {
  options.log(`first wait after start: ${options.runs} starts of inboxkit serve (compiled)`);
  const firsts: number[] = [];
  const seconds: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    const { first, second } = await once([`${options.build}/cli/main.js`, 'serve', '--port', '0', '--smtp-port', '0']);
    firsts.push(first);
    seconds.push(second);
  }
  return { command: 'inboxkit serve (compiled)', first: summarize(firsts), second: summarize(seconds) };
}
