/**
 * Delivery latency through the Playwright fixture: `inbox.waitForMessage` in a
 * real test run by the real runner (report attachment on, as by default),
 * from the start of the SMTP send to the wait returning the whole message.
 * In the same test, alternating sample by sample, the client's
 * `InboxHandle.waitForMessage` on the same kind of inbox: the fixture's cost
 * is the difference, measured under the same load.
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Host } from '../lib/hosts.ts';
import type { InboxkitHostReady } from '../hosts/inboxkit.ts';
import { summarize } from '../lib/stats.ts';
import type { DeliveryResult } from './delivery.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WARMUP = 20;

function spec(samples: number): string {
  const fixtures = pathToFileURL(join(ROOT, 'src/playwright/index.ts')).href;
  const mail = pathToFileURL(join(ROOT, 'bench/lib/mail.ts')).href;
  return `import { writeFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import { test } from ${JSON.stringify(fixtures)};
import { nodemailerMessage, transactionalHtml } from ${JSON.stringify(mail)};

test.setTimeout(0);
const HTML = transactionalHtml();

test('delivery through the fixture', async ({ createInbox }) => {
  const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: Number(process.env.BENCH_SMTP_PORT), secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity });
  const out = { fixture: [] as number[], fixtureAck: [] as number[], client: [] as number[], clientAck: [] as number[] };
  for (let i = -${WARMUP}; i < ${samples}; i++) {
    for (const via of ['fixture', 'client'] as const) {
      const inbox = await createInbox();
      const subject = 'Confirm your address ' + via + ' ' + i;
      const t0 = performance.now();
      const waiting = via === 'fixture' ? inbox.waitForMessage({ subject }, { timeout: 10_000 }) : inbox.handle.waitForMessage({ subject }, { timeout: 10_000 });
      await mailer.sendMail(nodemailerMessage({ from: 'no-reply@example.test', to: inbox.address, subject, html: HTML }));
      const ack = performance.now() - t0;
      const message = await waiting;
      const latency = performance.now() - t0;
      if (message.subject !== subject) throw new Error('bench: waited for ' + subject + ', got ' + message.subject);
      if (i >= 0) {
        out[via].push(latency);
        out[via === 'fixture' ? 'fixtureAck' : 'clientAck'].push(ack);
      }
    }
  }
  mailer.close();
  writeFileSync(process.env.BENCH_OUT!, JSON.stringify(out));
});
`;
}

/**
 * Runs the fixture scenario in a child Playwright runner against a running
 * inboxkit; returns two delivery rows: `inboxkit-fixture` and
 * `inboxkit-fixture-client` (the client's wait in the same test).
 */
export async function runFixtureDelivery(host: Host<InboxkitHostReady>, options: { samples: number; log: (line: string) => void }): Promise<DeliveryResult[]> {
  const dir = join(ROOT, '.tmp', `bench-fixture-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(
      join(dir, 'playwright.config.ts'),
      `import { defineConfig } from '@playwright/test';
export default defineConfig({ testDir: '.', workers: 1, reporter: 'null', outputDir: 'test-results', use: { inboxkit: { baseUrl: process.env.BENCH_INBOXKIT_URL } } });
`,
    );
    writeFileSync(join(dir, 'fixture.spec.ts'), spec(options.samples));
    const outFile = join(dir, 'samples.json');
    options.log(`delivery: Playwright fixture vs client wait in one test, ${options.samples} samples each, alternating`);
    const child = spawn(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(dir, 'playwright.config.ts')], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, BENCH_INBOXKIT_URL: host.ready.url, BENCH_SMTP_PORT: String(host.ready.smtpPort), BENCH_OUT: outFile, CI: '1' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    let out: { fixture: number[]; fixtureAck: number[]; client: number[]; clientAck: number[] };
    try {
      out = JSON.parse(readFileSync(outFile, 'utf8')) as typeof out;
    } catch {
      throw new Error(`bench: the fixture delivery test wrote no samples (exit code ${code}):\n${stderr.slice(-2000)}`);
    }
    const row = (target: string, latency: number[], ack: number[]): DeliveryResult => ({
      target, sender: 'pooled', greetingDelayMs: 0, concurrency: 1, latency: summarize(latency), smtpAck: summarize(ack),
    });
    return [row('inboxkit-fixture', out.fixture, out.fixtureAck), row('inboxkit-fixture-client', out.client, out.clientAck)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
