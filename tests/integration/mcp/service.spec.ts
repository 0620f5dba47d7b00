/**
 * The MCP endpoint as the service mounts it, and `inboxkit mcp` as a command:
 * the endpoint sits behind the API's middleware and binds each session to the
 * credential that opened it; a service that is down and a missing SDK are
 * errors that say what to do.
 */
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CLI, spawnServe } from '../../support/serve.ts';
import type { Ready } from '../../support/serve.ts';
import nodemailer from 'nodemailer';
import { call, connect } from './support.ts';

const ALICE = 'tm_alicealicealicealicealice0002';
const BOB = 'tm_bobbobbobbobbobbobbobbobbob02';
const WITHOUT_SDK = fileURLToPath(new URL('./without-sdk.mjs', import.meta.url));
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

const children: ChildProcess[] = [];
// With fullyParallel, a worker can run afterAll between two chunks of this file and come
// back for more of it: the shared service is forgotten with the processes it stops.
test.afterAll(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
  sharedService = undefined;
});

async function serve(args: string[] = [], env: Record<string, string> = {}): Promise<Ready> {
  return (await spawnServe(['--api-key', ALICE, '--api-key', BOB, ...args], { env, onSpawn: (c) => children.push(c) })).ready;
}

let sharedService: Promise<Ready> | undefined;
/** One service for the tests that need nothing special of it. */
function shared(): Promise<Ready> {
  return (sharedService ??= serve());
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('the /mcp endpoint is behind the API\'s middleware: an invalid credential is the API\'s 401 envelope, with a request id', async () => {
  const service = await shared();
  const res = await fetch(`${service.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, Authorization: 'Bearer tm_notakeynotakeynotakeynotakey00' }, body: JSON.stringify(INITIALIZE) });
  expect(res.status).toBe(401);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  expect((await res.json()).error.code).toBe('unauthorized');
});

test('an MCP session answers only to the credential that opened it', async () => {
  const service = await shared();
  const client = new Client({ name: 'alice', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${ALICE}` } } });
  await client.connect(transport);
  try {
    const sessionId = transport.sessionId!;
    expect(sessionId).toBeTruthy();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    for (const credential of [{ Authorization: `Bearer ${BOB}` }, {}] as Array<Record<string, string>>) {
      const res = await fetch(`${service.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18', ...credential }, body: JSON.stringify(list) });
      expect(res.status).toBe(404);
      expect(JSON.stringify(await res.json())).toContain('initialize a new one');
    }
    // Alice's own session still works.
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
  } finally {
    await client.close();
  }
});

test('a guest session sees the inboxes it created, and no one else\'s', async () => {
  const service = await shared();
  const alice = await connect('http', service, ALICE);
  const guest = await connect('http', service);
  try {
    const alicesInbox = /^Inbox (\S+)/m.exec((await call(alice.client, 'create_inbox')).text)![1]!;
    const own = await call(guest.client, 'create_inbox', { label: 'guest' });
    const ownId = /^Inbox (\S+)/m.exec(own.text)![1]!;
    expect((await call(guest.client, 'list_messages', { inbox_id: ownId })).text).toContain('No messages');
    const other = await call(guest.client, 'list_messages', { inbox_id: alicesInbox });
    expect(other.isError).toBe(true);
    expect(other.text).toContain('No inbox');
  } finally {
    await alice.close();
    await guest.close();
  }
});

test('prompts for the common flows list the tools to call, in order', async () => {
  const service = await shared();
  const { client, close } = await connect('http', service, ALICE);
  try {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['verify_signup_email', 'sign_in_with_emailed_code', 'reset_password']);
    const prompt = await client.getPrompt({ name: 'verify_signup_email', arguments: { signup_url: 'http://localhost:3000/signup' } });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    expect(text).toContain('"http://localhost:3000/signup"');
    expect(text.indexOf('create_inbox')).toBeLessThan(text.indexOf('wait_for_message'));
    expect(text.indexOf('wait_for_message')).toBeLessThan(text.indexOf('get_link'));
  } finally {
    await close();
  }
});

test('inboxkit serve --no-mcp serves no /mcp', async () => {
  const service = await serve(['--no-mcp']);
  const res = await fetch(`${service.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
  expect(res.status).toBe(404);
});

test('a service that is down is a tool error naming the URL and what to do, and the MCP server keeps running', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const { client, close } = await connect('stdio', { url }, ALICE);
  try {
    const answer = await call(client, 'create_inbox');
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain(`The inboxkit service at ${url}/api/v1 is not reachable`);
    expect(answer.text).toContain('npx inboxkit serve');
    expect(answer.text).not.toContain(ALICE);
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
  } finally {
    await close();
  }
});

test('without the optional MCP SDK, inboxkit mcp and /mcp name the install command', async () => {
  const cli = spawnSync(process.execPath, ['--import', WITHOUT_SDK, CLI, 'mcp', '--base-url', 'http://127.0.0.1:9'], { input: '', encoding: 'utf8', timeout: 30_000 });
  expect(cli.status).toBe(1);
  expect(cli.stderr).toContain('npm install --save-dev @modelcontextprotocol/sdk@');
  expect(cli.stdout).toBe('');

  const service = await serve([], { NODE_OPTIONS: `--import=${WITHOUT_SDK}` });
  const res = await fetch(`${service.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
  expect(res.status).toBe(501);
  expect(JSON.stringify(await res.json())).toContain('npm install --save-dev @modelcontextprotocol/sdk@');
  // The API itself is untouched.
  expect((await fetch(`${service.apiUrl}/domains`)).status).toBe(200);
});

test('inboxkit mcp --help names the flags and the environment variables, and refuses a malformed key', async () => {
  const help = spawnSync(process.execPath, [CLI, 'mcp', '--help'], { encoding: 'utf8' });
  expect(help.status).toBe(0);
  for (const name of ['--base-url', 'INBOXKIT_BASE_URL', '--api-key', 'INBOXKIT_API_KEY', '--session-token']) expect(help.stdout).toContain(name);
  const bad = spawnSync(process.execPath, [CLI, 'mcp', '--api-key', 'sk_nope'], { encoding: 'utf8' });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toContain('must start with "tm_"');
});

test('a long email is returned trimmed with a note, its links capped, its HTML never whole, and a request past the bound is refused', async () => {
  const service = await shared();
  const { client, close } = await connect('http', service, ALICE);
  try {
    const created = (await call(client, 'create_inbox')).text;
    const id = /^Inbox (\S+)/m.exec(created)![1]!;
    const address = /^Address: (\S+)/m.exec(created)![1]!;
    const links = Array.from({ length: 40 }, (_, i) => `<a href="https://app.acme.example/item/${i}">Item ${i}</a>`).join(' ');
    const transport = nodemailer.createTransport({ host: service.smtpHost, port: service.smtpPort, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'no-reply@acme.example', to: address, subject: 'A long digest', text: `${'All the news. '.repeat(2000)}`, html: `<div style="color:red">${'<p>All the news.</p>'.repeat(2000)}${links}</div>` });
    transport.close();

    const got = await call(client, 'wait_for_message', { inbox_id: id, timeout_seconds: 30 });
    expect(got.text.length).toBeLessThan(12_500);
    expect(got.text).toMatch(/more characters not shown; call get_message with a larger max_text_chars/);
    expect(got.text).toContain('… and 25 more; call get_link');
    expect(got.text).not.toContain('<div');
    const messageId = /^Message (\S+)/m.exec(got.text)![1]!;
    expect((await call(client, 'get_link', { message_id: messageId, text: 'Item 33' })).text).toBe('https://app.acme.example/item/33');

    const more = await call(client, 'get_message', { message_id: messageId, max_text_chars: 6000 });
    expect(more.isError).toBe(false);
    expect(more.text).toContain('first 6000 of');
    const tooMuch = await call(client, 'get_message', { message_id: messageId, max_text_chars: 100_000 });
    expect(tooMuch).toMatchObject({ isError: true });
    expect(tooMuch.text).toContain('max_text_chars is at most 6000');
  } finally {
    await close();
  }
});

test('check_links (stdio only) requests the allowed origin\'s links and images (listed in a bounded worker) and reports working, broken and skipped ones; the mounted server does not offer it', async () => {
  const service = await shared();
  const app = createHttpServer((req, res) => {
    if (req.url === '/ok') res.writeHead(200).end('ok');
    else if (req.url === '/moved') res.writeHead(302, { Location: '/ok' }).end();
    else res.writeHead(404).end('gone');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  const stdio = await connect('stdio', service, ALICE);
  const http = await connect('http', service, ALICE);
  try {
    expect((await http.client.listTools()).tools.map((t) => t.name)).not.toContain('check_links');
    const created = (await call(stdio.client, 'create_inbox')).text;
    const id = /^Inbox (\S+)/m.exec(created)![1]!;
    const address = /^Address: (\S+)/m.exec(created)![1]!;
    const transport = nodemailer.createTransport({ host: service.smtpHost, port: service.smtpPort, secure: false, ignoreTLS: true });
    await transport.sendMail({
      from: 'no-reply@acme.example', to: address, subject: 'Links',
      html: `<a href="${appUrl}/ok">Fine</a> <a href="${appUrl}/moved">Moved</a> <a href="${appUrl}/gone">Gone</a> <a href="${appUrl}/confirm?t=1">Confirm</a> <a href="https://elsewhere.example/x">Elsewhere</a> <img src="${appUrl}/logo.png" alt="Acme logo">`,
    });
    transport.close();
    const messageId = /^Message (\S+)/m.exec((await call(stdio.client, 'wait_for_message', { inbox_id: id, timeout_seconds: 30 })).text)![1]!;
    const report = await call(stdio.client, 'check_links', { message_id: messageId, allow: [appUrl], exclude: ['/confirm'] });
    expect(report.isError, report.text).toBe(false);
    expect(report.text).toMatch(/^2 working, 2 broken, 2 skipped/);
    expect(report.text).toMatch(/✗ image "Acme logo" .*\/logo\.png: 404/);
    expect(report.text).toMatch(/✓ link "Moved" .*\/moved → .*\/ok: 200/);
    expect(report.text).toMatch(/✗ link "Gone" .*\/gone: 404/);
    expect(report.text).toMatch(/– link "Confirm" .*excluded by \/confirm/);
    expect(report.text).toMatch(/– link "Elsewhere" .*not the app's origin/);
    const bad = await call(stdio.client, 'check_links', { message_id: messageId, allow: ['not a url'] });
    expect(bad).toMatchObject({ isError: true });
    expect(bad.text).toContain('allow takes origins such as');
  } finally {
    await stdio.close();
    await http.close();
    await new Promise((resolve) => app.close(resolve));
  }
});
