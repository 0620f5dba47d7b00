/**
 * What `inboxkit serve` loads at start: only what the first requests and the
 * first message need. The PostgreSQL driver, the MCP server (and the client it
 * talks to the API with) and the forwarder's SMTP client load when they are
 * used, not before. Checked on the
 * modules the spawned process resolved (tests/.../module-trace.ts), never by time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test, expect } from './fixtures.ts';
import { spawnServe } from '../../support/serve.ts';

const TRACE = fileURLToPath(new URL('./module-trace.ts', import.meta.url));
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'startup-test', version: '1' } } };

/** Modules that a SQLite service with an unused /mcp must not load at start, by what their URL contains. */
const NOT_AT_START = {
  'the PostgreSQL driver': '/node_modules/pg/',
  'the PostgreSQL store': '/src/server/storage/postgres.ts',
  'the PostgreSQL event bus': '/src/server/events/postgres-bus.ts',
  'the MCP server': '/src/mcp/',
  'the MCP SDK': '/node_modules/@modelcontextprotocol/',
  'the client (used by the MCP server)': '/src/client/',
  'cheerio (the client\'s link extraction)': '/node_modules/cheerio/',
  // smtp-server shares a few of nodemailer's helpers; its entry (the transports) is the forwarder's.
  'nodemailer\'s entry (forwarding, without --relay-url)': import.meta.resolve('nodemailer'),
};

// Each test spawns the CLI (a Node.js process that loads the service) once or several times:
// seconds on a quiet machine, many times that on a loaded 2-core CI machine.
test.describe.configure({ timeout: 90_000 });

const running = new Set<ChildProcessWithoutNullStreams>();
test.afterEach(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  running.clear();
});

/** Runs `inboxkit serve` with the module trace, lets `use` talk to it, stops it, and returns the modules it resolved. */
async function modulesLoaded(tempDir: string, use: (url: string) => Promise<void>): Promise<string[]> {
  const file = join(tempDir, 'modules.txt');
  const { child, ready } = await spawnServe([], {
    env: { NODE_OPTIONS: `--import=${TRACE}`, INBOXKIT_TEST_MODULE_TRACE: file },
    onSpawn: (c) => running.add(c),
  });
  await use(ready.url);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return readFileSync(file, 'utf8').split('\n');
}

test('inboxkit serve on SQLite answers without loading the PostgreSQL driver, the MCP server, the client or nodemailer', { tag: '@heavy' }, async ({ tempDir }) => {
  const modules = await modulesLoaded(tempDir, async (url) => {
    const res = await fetch(`${url}/api/v1/domains`);
    expect(res.status).toBe(200);
  });
  // The trace sees the service's own modules, or the checks below could not fail.
  expect(modules.some((u) => u.endsWith('/src/server/start.ts'))).toBe(true);
  expect(modules.some((u) => u.includes('/node_modules/smtp-server/'))).toBe(true);
  const loaded = Object.entries(NOT_AT_START).filter(([, part]) => modules.some((u) => u.includes(part))).map(([name]) => name);
  expect(loaded, 'modules loaded at start that only some requests need').toEqual([]);
});

test('the /mcp endpoint of inboxkit serve loads the MCP server on its first request and answers it', { tag: '@heavy' }, async ({ tempDir }) => {
  const modules = await modulesLoaded(tempDir, async (url) => {
    const res = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify(INITIALIZE) });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"serverInfo"');
  });
  expect(modules.some((u) => u.endsWith('/src/mcp/http.ts'))).toBe(true);
  expect(modules.some((u) => u.includes('/node_modules/@modelcontextprotocol/sdk/'))).toBe(true);
});
