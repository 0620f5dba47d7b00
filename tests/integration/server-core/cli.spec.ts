import { join } from 'node:path';
import { execFile } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { test, expect } from './fixtures.ts';
import { CLI, spawnServe } from '../../support/serve.ts';
import type { Served } from '../../support/serve.ts';

const run = promisify(execFile);

/** Servers still running when a test ends (failed or timed out) are killed. */
// Each test spawns the CLI (a Node.js process that loads the service) once or several times:
// seconds on a quiet machine, many times that on a loaded 2-core CI machine.
test.describe.configure({ timeout: 90_000 });

const running = new Set<ChildProcessWithoutNullStreams>();
test.afterEach(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  running.clear();
});

/** Runs the CLI to completion. */
async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Starts `inboxkit serve` and resolves with the machine-readable line once it listens. */
function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  return spawnServe(args, { env, onSpawn: (child) => running.add(child) });
}

async function stop(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

test('inboxkit serve on port 0 prints its URLs and answers GET /api/v1/domains, then stops cleanly on SIGTERM', { tag: '@heavy' }, async () => {
  const { child, ready, output } = await serve(['--domain', 'one.test', '--domain', 'two.test']);
  try {
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.apiUrl).toBe(`${ready.url}/api/v1`);
    expect(ready.smtpHost).toBe('127.0.0.1');
    expect(output()).toContain(`HTTP API  ${ready.apiUrl}`);
    const res = await fetch(`${ready.apiUrl}/domains`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Array<{ domain: string; isDefault: boolean }> };
    expect(body.data.map((d) => [d.domain, d.isDefault])).toEqual([['one.test', true], ['two.test', false]]);
  } finally {
    expect(await stop(child)).toBe(0);
  }
});

test('API keys from --api-key and INBOXKIT_API_KEYS are accepted, each as its own user', { tag: '@heavy' }, async () => {
  const flagKey = 'tm_flagflagflagflagflagflagflag';
  const envKeys = ['tm_envAenvAenvAenvAenvAenvA', 'tm_envBenvBenvBenvBenvBenvB'];
  const { child, ready } = await serve(['--api-key', flagKey], { INBOXKIT_API_KEYS: envKeys.join(',') });
  try {
    const users = new Set<string>();
    for (const key of [flagKey, ...envKeys]) {
      const res = await fetch(`${ready.apiUrl}/me`, { headers: { authorization: `Bearer ${key}` } });
      const me = (await res.json()) as { data: { credential: string; user: { id: string } } };
      expect(me.data.credential).toBe('apiKey');
      users.add(me.data.user.id);
    }
    expect(users.size).toBe(3);
    expect((await fetch(`${ready.apiUrl}/me`, { headers: { authorization: 'Bearer tm_otherotherotherotherother' } })).status).toBe(401);
  } finally {
    await stop(child);
  }
});

test('serve flags reach the server: TTL, rate limit and message size', { tag: '@heavy' }, async () => {
  const { child, ready } = await serve(['--ttl', 'never', '--rate-limit', '7', '--max-message-size', '2m']);
  try {
    const res = await fetch(`${ready.apiUrl}/me`);
    expect(res.headers.get('x-ratelimit-limit')).toBe('7');
    const me = (await res.json()) as { data: { plan: { entitlements: { inboxTtlSeconds: number | null; maxMessageBytes: number } } } };
    expect(me.data.plan.entitlements).toMatchObject({ inboxTtlSeconds: null, maxMessageBytes: 2 * 1024 * 1024 });
  } finally {
    await stop(child);
  }
});

test('inboxkit keys create prints a key once, and serve --db on the same file accepts it; data survives a restart', { tag: '@heavy' }, async ({ tempDir }) => {
  const db = join(tempDir, 'inboxkit.db');
  const created = await cli(['keys', 'create', '--db', db, '--email', 'dev@example.com']);
  expect(created.code).toBe(0);
  const key = created.stdout.trim();
  expect(key).toMatch(/^tm_[A-Za-z0-9_-]{43}$/);
  expect(created.stderr).toContain('dev@example.com');

  let inboxId: string;
  {
    const { child, ready } = await serve(['--db', db]);
    try {
      const me = (await (await fetch(`${ready.apiUrl}/me`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { user: { email: string } } };
      expect(me.data.user.email).toBe('dev@example.com');
      const inbox = await fetch(`${ready.apiUrl}/inboxes`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
      inboxId = ((await inbox.json()) as { data: { id: string } }).data.id;
    } finally {
      await stop(child);
    }
  }
  const { child, ready } = await serve(['--db', db]);
  try {
    const res = await fetch(`${ready.apiUrl}/inboxes/${inboxId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  } finally {
    await stop(child);
  }
});

test('inboxkit keys revoke removes a key from the database: a server on the file then answers 401, and a second revoke exits 1', { tag: '@heavy' }, async ({ tempDir }) => {
  const db = join(tempDir, 'inboxkit.db');
  const key = (await cli(['keys', 'create', '--db', db])).stdout.trim();
  const revoked = await cli(['keys', 'revoke', '--db', db, '--key', key]);
  expect({ code: revoked.code, stderr: revoked.stderr }).toEqual({ code: 0, stderr: expect.stringContaining('Revoked the API key') });
  const { child, ready } = await serve(['--db', db]);
  try {
    const res = await fetch(`${ready.apiUrl}/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(401);
  } finally {
    await stop(child);
  }
  const again = await cli(['keys', 'revoke', '--db', db, '--key', key]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('no such API key');
});

test('inboxkit openapi prints a valid OpenAPI 3.1 document as JSON', { tag: '@heavy' }, async () => {
  const { code, stdout } = await cli(['openapi']);
  expect(code).toBe(0);
  const doc = JSON.parse(stdout);
  expect(doc.info.version).toBe('1.0.0');
  expect((await new Validator().validate(doc)).valid).toBe(true);
});

test('serve --help documents every flag', { tag: '@heavy' }, async () => {
  const { code, stdout } = await cli(['serve', '--help']);
  expect(code).toBe(0);
  for (const flag of ['--host', '--port', '--smtp-host', '--smtp-port', '--db', '--domain', '--api-key', 'INBOXKIT_API_KEYS', '--rate-limit', '--ttl', '--max-message-size', '--relay-url', '--log-level']) {
    expect(stdout).toContain(flag);
  }
  expect(stdout).toContain('127.0.0.1');
});

test('bad flags and commands exit 2 with a message that says what to fix', { tag: '@heavy' }, async () => {
  const cases: Array<[string[], RegExp]> = [
    [['serve', '--bogus'], /Unknown option '--bogus'/],
    [['serve', '--port', 'eighty'], /--port must be a port number/],
    [['serve', '--ttl', 'soon'], /--ttl must be a number of seconds or "never"/],
    [['serve', '--relay-url', 'http://x'], /--relay-url must use smtp:\/\//],
    [['serve', '--api-key', 'sk_nope'], /must start with "tm_"/],
    [['serve', '--domain', 'not a domain'], /not a valid mail domain/],
    [['keys', 'create'], /needs --db PATH/],
    [['keys', 'revoke', '--db', 'x.db'], /needs --key/],
    [['keys', 'revoke', '--db', 'x.db', '--key', 'sk_live'], /starts with "tm_"/],
    [['frobnicate'], /unknown command "frobnicate"/],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await cli(args);
    expect({ args, code }).toEqual({ args, code: 2 });
    expect(stderr).toMatch(message);
  }
});

test('a taken HTTP or SMTP port is reported in one line with one prefix and what to do, exit 1', { tag: '@heavy' }, async () => {
  const { child, ready } = await serve([]);
  try {
    const port = new URL(ready.url).port;
    const http = await cli(['serve', '--port', port, '--smtp-port', '0']);
    expect(http.code).toBe(1);
    expect(http.stderr).toBe(`inboxkit: cannot listen for HTTP on 127.0.0.1:${port}: port ${port} is already in use. Pick another HTTP port (0 chooses a free one).\n`);
    // No JSON log line with a stack before the sentence: only the sentence.
    const smtp = await cli(['serve', '--port', '0', '--smtp-port', String(ready.smtpPort)]);
    expect(smtp.code).toBe(1);
    expect(smtp.stderr).toBe(`inboxkit: cannot listen for SMTP on 127.0.0.1:${ready.smtpPort}: port ${ready.smtpPort} is already in use. Pick another SMTP port (0 chooses a free one).\n`);
  } finally {
    await stop(child);
  }
});
