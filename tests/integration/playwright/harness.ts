/**
 * Runs Playwright specs through the real runner, the way Playwright tests
 * itself: the files are written to a fresh folder inside the repository (so
 * that `@playwright/test` and `nodemailer` resolve from its node_modules), the
 * runner is started as a child process with a JSON reporter, and the parsed
 * report is returned. Every folder is removed afterwards.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base } from '@playwright/test';
import { createClient } from '../../../src/client/index.ts';
import type { InboxkitClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

/** The repository's root folder. */
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** What inline specs import: the fixtures' sources, by absolute path. */
export const FIXTURES_ENTRY = path.join(REPO, 'src/playwright/index.ts');
const PLAYWRIGHT_CLI = path.join(REPO, 'node_modules/@playwright/test/cli.js');

/** The API key the outer tests' servers accept. */
export const API_KEY = `tm_${'k'.repeat(32)}`;

/** A helper every inline project gets as `./send.ts`: sends one email to the server under test over SMTP. */
const SEND_TS = `
import nodemailer from 'nodemailer';

export interface Mail { to: string; subject: string; text?: string; html?: string; from?: string }

export async function send(mail: Mail): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: Number(process.env.INBOXKIT_SMTP_PORT), secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ from: mail.from ?? 'Acme <no-reply@acme.example>', ...mail });
  } finally {
    transport.close();
  }
}

/** Writes a value outside the report, for the outer test to read (e.g. the inbox token it scans the report for). */
export async function leak(name: string, value: string): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(process.env.INBOXKIT_OUT_DIR + '/' + name, value);
}
`;

/** One test result of the JSON report, flattened. */
export interface InlineResult {
  /** The test's title. */
  title: string;
  /** `passed`, `failed`, `timedOut`, `skipped`, `interrupted`. */
  status: string;
  workerIndex: number;
  /** Messages of the test's errors (ANSI colours removed). */
  errors: string[];
  /** The test's stdout. */
  stdout: string;
  /** The test's annotations (`testInfo.annotations`), as `type: description`. */
  annotations: string[];
  /** Attachments with their bodies (inline bodies decoded, files read). */
  attachments: Array<{ name: string; contentType: string; body: Buffer }>;
  /** Titles of every step, nested ones included, depth-first. */
  steps: string[];
  /** The test's errors with their stacks and locations (ANSI colours removed). */
  errorDetails: Array<{ message: string; stack: string; location: JsonLocation | undefined }>;
  /** Every step, nested ones included, depth-first, with its location. */
  stepDetails: Array<{ title: string; location: JsonLocation | undefined }>;
}

/** What a run of the runner produced. */
export interface InlineRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The JSON report as text. */
  reportText: string;
  /** Results by test title. */
  results: Map<string, InlineResult>;
  /** Files the specs wrote with `leak()`. */
  out: Map<string, string>;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** A source location in the JSON report. */
export interface JsonLocation {
  file: string;
  line: number;
  column: number;
}
interface JsonStep {
  title: string;
  location?: JsonLocation;
  steps?: JsonStep[];
}
interface JsonResult {
  status: string;
  workerIndex: number;
  errors?: Array<{ message?: string; stack?: string; location?: JsonLocation }>;
  stdout?: Array<{ text?: string; buffer?: string }>;
  annotations?: Array<{ type: string; description?: string }>;
  attachments?: Array<{ name: string; contentType: string; path?: string; body?: string }>;
  steps?: JsonStep[];
}
interface JsonSuite {
  specs?: Array<{ title: string; tests: Array<{ results: JsonResult[]; annotations?: Array<{ type: string; description?: string }> }> }>;
  suites?: JsonSuite[];
}

function stepTitles(steps: JsonStep[] | undefined, into: string[]): string[] {
  for (const step of steps ?? []) {
    into.push(step.title);
    stepTitles(step.steps, into);
  }
  return into;
}

function stepDetails(steps: JsonStep[] | undefined, into: InlineResult['stepDetails']): InlineResult['stepDetails'] {
  for (const step of steps ?? []) {
    into.push({ title: step.title, location: step.location });
    stepDetails(step.steps, into);
  }
  return into;
}

async function flatten(suites: JsonSuite[], into: Map<string, InlineResult>): Promise<void> {
  for (const suite of suites) {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) {
        const result = t.results[t.results.length - 1];
        if (!result) continue;
        const attachments = [];
        for (const a of result.attachments ?? []) {
          const body = a.body !== undefined ? Buffer.from(a.body, 'base64') : a.path ? await readFile(a.path) : Buffer.alloc(0);
          attachments.push({ name: a.name, contentType: a.contentType, body });
        }
        into.set(spec.title, {
          title: spec.title,
          status: result.status,
          workerIndex: result.workerIndex,
          errors: (result.errors ?? []).map((e) => (e.message ?? '').replace(ANSI, '')),
          stdout: (result.stdout ?? []).map((s) => s.text ?? Buffer.from(s.buffer ?? '', 'base64').toString()).join(''),
          annotations: (result.annotations ?? t.annotations ?? []).map((a) => `${a.type}: ${a.description ?? ''}`),
          attachments,
          steps: stepTitles(result.steps, []),
          errorDetails: (result.errors ?? []).map((e) => ({ message: (e.message ?? '').replace(ANSI, ''), stack: (e.stack ?? '').replace(ANSI, ''), location: e.location })),
          stepDetails: stepDetails(result.steps, []),
        });
      }
    }
    await flatten(suite.suites ?? [], into);
  }
}

/** Milliseconds each {@link runInline} adds to the running test's timeout. */
const NESTED_RUN_BUDGET_MS = 90_000;

/** Options of {@link runInline}. */
export interface InlineOptions {
  /** The `use.inboxkit` options of the inline config (a JSON value). */
  inboxkit?: Record<string, unknown>;
  /** Other top-level config fields, as TypeScript source (e.g. `timeout: 4000,`). */
  configExtra?: string;
  /** A whole playwright.config.ts instead of the generated one. */
  config?: string;
  /** A reporter file of the inline project (e.g. `./steps.ts`) the generated config adds after the JSON report. */
  reporter?: string;
  /** Workers of the inner run. */
  workers?: number;
  /** Environment of the inner run (added to a cleaned copy of this process's). */
  env?: Record<string, string>;
}

/** An environment for a child runner: this worker's Playwright variables removed. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(TEST_|PW_|PLAYWRIGHT_)/.test(key) || key === 'NODE_OPTIONS' || key === 'FORCE_COLOR') continue;
    env[key] = value;
  }
  return { ...env, FORCE_COLOR: '0', ...extra };
}

/**
 * Writes `files` (path → content; `send.ts` is added) with a playwright.config.ts
 * into a fresh folder under `.tmp/`, runs the runner there and returns the report.
 */
export async function runInline(files: Record<string, string>, options: InlineOptions = {}): Promise<InlineRun> {
  // A child runner (its own Node.js, config load, workers, often a browser) takes seconds on a quiet
  // machine and many times that on a loaded 2-core one: each run adds its own budget to the test's.
  const info = base.info();
  info.setTimeout(info.timeout + NESTED_RUN_BUDGET_MS);
  const dir = path.join(REPO, '.tmp', `pw-${randomBytes(6).toString('hex')}`);
  const outDir = path.join(dir, 'out');
  await mkdir(outDir, { recursive: true });
  try {
    const config =
      options.config ??
      `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.',
  outputDir: './test-results',
  fullyParallel: true,
  workers: ${options.workers ?? 1},
  retries: 0,
  reporter: [['json', { outputFile: 'report.json' }]${options.reporter ? `, [${JSON.stringify(options.reporter)}]` : ''}],
  use: { inboxkit: ${JSON.stringify(options.inboxkit ?? {})} },
  ${options.configExtra ?? ''}
});
`;
    await writeFile(path.join(dir, 'playwright.config.ts'), config.replaceAll('$FIXTURES', FIXTURES_ENTRY));
    await writeFile(path.join(dir, 'send.ts'), SEND_TS);
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), content.replaceAll('$FIXTURES', FIXTURES_ENTRY));
    }
    const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'test', '-c', path.join(dir, 'playwright.config.ts')], {
      cwd: dir,
      env: childEnv({ INBOXKIT_OUT_DIR: outDir, ...options.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve(code));
    });
    let reportText = '';
    try {
      reportText = await readFile(path.join(dir, 'report.json'), 'utf8');
    } catch {
      throw new Error(`The inner Playwright run wrote no report (exit code ${exitCode}).\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    }
    const report = JSON.parse(reportText) as { suites: JsonSuite[]; errors?: Array<{ message?: string }> };
    const results = new Map<string, InlineResult>();
    await flatten(report.suites, results);
    if (results.size === 0) {
      throw new Error(`The inner Playwright run reported no test.\nerrors: ${JSON.stringify(report.errors)}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    }
    const out = new Map<string, string>();
    for (const name of await readdir(outDir)) out.set(name, await readFile(path.join(outDir, name), 'utf8'));
    return { exitCode, stdout, stderr, reportText, results, out };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The result of a test by title, failing with the titles there were when it is missing. */
export function resultOf(run: InlineRun, title: string): InlineResult {
  const result = run.results.get(title);
  if (!result) throw new Error(`No result for ${JSON.stringify(title)}; the run had: ${[...run.results.keys()].join(' | ')}\nstderr: ${run.stderr}`);
  return result;
}

/** The outer tests' fixtures: a local server with an API key, and a client of it with that key. */
export const test = base.extend<object, { server: RunningServer; admin: InboxkitClient }>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startServer({ port: 0, smtpPort: 0, apiKeys: [API_KEY] });
      await use(server);
      await server.close();
    },
    { scope: 'worker' },
  ],
  admin: [
    async ({ server }, use) => {
      const client = createClient({ baseUrl: server.url, apiKey: API_KEY });
      await use(client);
      await client.close();
    },
    { scope: 'worker' },
  ],
});

/** The environment an inline run needs to send mail to `server`. */
export function smtpEnv(server: RunningServer): Record<string, string> {
  return { INBOXKIT_SMTP_PORT: String(server.smtpPort) };
}
