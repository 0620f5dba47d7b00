/**
 * A Playwright suite of N tests on 4 workers, each test sending one email and
 * waiting for it (the send is not awaited first: the application under test
 * sends in the background while the test waits), run by the real runner as a child process; wall time from
 * spawn to exit. The same suite with a 500 ms polling waiter, and with no
 * email at all (the runner's own cost), run alongside for comparison.
 *
 * The suite is generated into a temporary folder inside the repository (so
 * that `@playwright/test` and the TypeScript transform resolve as they do for
 * a user) and imports the fixtures from src/playwright/index.ts by path.
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Host } from '../lib/hosts.ts';
import type { InboxkitHostReady } from '../hosts/inboxkit.ts';

/** Wall time of one suite run. */
export interface SuiteResult {
  /** `waitForMessage`, `poll-500ms` or `no-email`. */
  variant: string;
  tests: number;
  workers: number;
  /** Wall time of the median run. */
  seconds: number;
  passed: number;
  failed: number;
  /** Wall time of each run, in the order they ran. */
  secondsRuns: number[];
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const BODIES: Record<string, string> = {
  waitForMessage: `
    const sending = send(inbox.address, subject);
    const message = await inbox.waitForMessage({ subject });
    expect(message.subject).toBe(subject);
    await sending;`,
  'poll-500ms': `
    const sending = send(inbox.address, subject);
    let found;
    for (;;) {
      const page = await inbox.handle.messages({ limit: 20 });
      found = page.items.find((m) => m.subject === subject);
      if (found) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const message = await inbox.handle.message(found.id);
    expect(message.subject).toBe(subject);
    await sending;`,
  'no-email': `
    expect(inbox.address).toContain('@');`,
};

function writeSuite(dir: string, variant: string, tests: number, workers: number): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const fixtures = pathToFileURL(join(ROOT, 'src/playwright/index.ts')).href;
  writeFileSync(
    join(dir, 'playwright.config.ts'),
    `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.',
  fullyParallel: true,
  workers: ${workers},
  reporter: [['json', { outputFile: 'report.json' }]],
  outputDir: 'test-results',
  use: { inboxkit: { baseUrl: process.env.BENCH_INBOXKIT_URL } },
});
`,
  );
  const files = 8;
  const perFile = Math.ceil(tests / files);
  for (let f = 0; f < files; f++) {
    const count = Math.min(perFile, tests - f * perFile);
    if (count <= 0) break;
    const cases = Array.from({ length: count }, (_, i) => {
      const n = f * perFile + i;
      return `test('test ${n} gets its email', async ({ inbox }) => {
    const subject = 'Confirm your address ${n}';${BODIES[variant]}
});`;
    }).join('\n\n');
    writeFileSync(
      join(dir, `suite-${f}.spec.ts`),
      `import nodemailer from 'nodemailer';
import { test, expect } from ${JSON.stringify(fixtures)};

const transport = nodemailer.createTransport({ host: '127.0.0.1', port: Number(process.env.BENCH_SMTP_PORT), secure: false, ignoreTLS: true });
const send = (to: string, subject: string) =>
  transport.sendMail({ from: 'no-reply@example.test', to, subject, html: '<p>Your code is <b>482913</b>. <a href="https://app.example.test/confirm?t=1">Confirm</a></p>' });
void expect;

${cases}
`,
    );
  }
}

async function runSuite(dir: string, host: Host<InboxkitHostReady>): Promise<{ seconds: number; passed: number; failed: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(dir, 'playwright.config.ts')], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, BENCH_INBOXKIT_URL: host.ready.url, BENCH_SMTP_PORT: String(host.ready.smtpPort), CI: '1' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  const seconds = (performance.now() - t0) / 1000;
  let stats = { expected: 0, unexpected: 0 };
  try {
    const { readFileSync } = await import('node:fs');
    stats = (JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { stats: typeof stats }).stats;
  } catch {
    throw new Error(`bench: the generated Playwright suite wrote no report (exit code ${code}):\n${stderr.slice(-2000)}`);
  }
  return { seconds, passed: stats.expected, failed: stats.unexpected };
}

/** Generates and runs the suite variants against a running inboxkit. */
export async function runSuites(host: Host<InboxkitHostReady>, options: { tests: number; workers: number; variants: string[]; repetitions?: number; log: (line: string) => void }): Promise<SuiteResult[]> {
  const base = join(ROOT, '.tmp', `bench-suite-${process.pid}`);
  const repetitions = options.repetitions ?? 1;
  const runs = new Map<string, Array<Omit<SuiteResult, 'variant' | 'tests' | 'workers' | 'secondsRuns'>>>();
  try {
    for (const variant of options.variants) writeSuite(join(base, variant), variant, options.tests, options.workers);
    // The variants alternate, so that a change in the machine's load weighs on each; the median run is reported.
    for (let r = 0; r < repetitions; r++) {
      for (const variant of options.variants) {
        options.log(`suite: ${options.tests} tests, ${options.workers} workers, ${variant} (run ${r + 1} of ${repetitions})`);
        const list = runs.get(variant) ?? [];
        list.push(await runSuite(join(base, variant), host));
        runs.set(variant, list);
      }
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return options.variants.map((variant) => {
    const list = runs.get(variant) ?? [];
    const median = [...list].sort((a, b) => a.seconds - b.seconds)[Math.floor((list.length - 1) / 2)] ?? { seconds: NaN, passed: 0, failed: 0 };
    return { variant, tests: options.tests, workers: options.workers, ...median, secondsRuns: list.map((run) => run.seconds) };
  });
}
