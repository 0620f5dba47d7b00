/**
 * A guest's email full of links cannot hold the service through the MCP
 * tools: link and code extraction and the compatibility check run in a
 * bounded worker, so `/healthz` keeps answering while `get_message`,
 * `get_link`, `get_code` and `check_compatibility` read it, and the answers
 * are the analyses' own.
 */
import { test, expect } from '@playwright/test';
import nodemailer from 'nodemailer';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { createMcpHttpHandler } from '../../../src/mcp/index.ts';
import type { McpHttpHandler } from '../../../src/mcp/index.ts';
import type { AnalysisRunner } from '../../../src/checks/analysis-runner.ts';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2025-06-18' };
const LINKS = 4000;

let server: RunningServer;
let mcp: McpHttpHandler;

test.beforeEach(async () => {
  mcp = createMcpHttpHandler();
  server = await startServer({ rateLimit: false, mounts: [{ path: '/mcp', handler: (request, info) => mcp.handle(request, info) }] });
});

test.afterEach(async () => {
  await mcp.close();
  await server.close();
});

async function rpc(sessionId: string | null, message: object): Promise<{ sessionId: string; text: string }> {
  const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...(sessionId ? { 'Mcp-Session-Id': sessionId } : {}) }, body: JSON.stringify(message) });
  const body = await res.text();
  const json = body.startsWith('{') ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? 'null');
  const result = (JSON.parse(json) as { result?: { content?: Array<{ text?: string }> } } | null)?.result;
  return { sessionId: res.headers.get('mcp-session-id') ?? sessionId ?? '', text: result?.content?.map((c) => c.text ?? '').join('\n') ?? JSON.stringify(result) };
}

test('get_message, get_link, get_code and check_compatibility on an email of 4,000 links answer while /healthz keeps answering', async () => {
  test.setTimeout(180_000);
  const { sessionId } = await rpc(null, INITIALIZE);
  await rpc(sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const created = await rpc(sessionId, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_inbox', arguments: {} } });
  const inboxId = /Inbox (ibx_[A-Za-z0-9]+)/.exec(created.text)?.[1];
  const address = /[\w.+-]+@[\w.-]+/.exec(created.text)?.[0];
  expect(inboxId && address).toBeTruthy();

  const links = Array.from({ length: LINKS }, (_, i) => `<a href="https://shop.example/p/${i}?ref=mail&amp;n=${i}">Product ${i} with a longer name</a>`).join(' ');
  const html = `<p>Your code is <b>482913</b>.</p><p><a href="https://app.example/confirm?t=abc">Confirm email</a></p><div>${links}</div>`;
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
  await smtp.sendMail({ from: 'Acme <hello@acme.example>', to: address!, subject: 'Many links', html });
  smtp.close();
  const waited = await rpc(sessionId, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait_for_message', arguments: { inbox_id: inboxId, timeout_seconds: 60 } } });
  const messageId = /Message (msg_[A-Za-z0-9]+)/.exec(waited.text)?.[1];
  expect(messageId, waited.text).toBeTruthy();

  let reading = true;
  const waits: number[] = [];
  const health = (async () => {
    while (reading) {
      const started = performance.now();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    const message = await rpc(sessionId, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_message', arguments: { message_id: messageId } } });
    // The extraction reads the first 1,000 links and says so.
    expect(message.text).toContain('Links (1000)');
    expect(message.text).toContain('Not everything was read: only the first 1000 links');
    const link = await rpc(sessionId, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_link', arguments: { message_id: messageId, text: 'Confirm email' } } });
    expect(link.text).toBe('https://app.example/confirm?t=abc');
    const code = await rpc(sessionId, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'get_code', arguments: { message_id: messageId } } });
    expect(code.text).toContain('Code: 482913');
    const compatible = await rpc(sessionId, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'check_compatibility', arguments: { message_id: messageId, clients: ['gmail'] } } });
    expect(compatible.text).toMatch(/^(Not compatible|Compatible) with \d+ client\(s\) \(checked the original HTML/);
    const unknown = await rpc(sessionId, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'check_compatibility', arguments: { message_id: messageId, clients: ['no-such-client'] } } });
    expect(unknown.text).toContain('no-such-client');
  } finally {
    reading = false;
    await health;
  }
  expect(Math.max(...waits), `/healthz waits (ms): ${waits.map((w) => w.toFixed(0)).join(', ')}`).toBeLessThan(2_000);
});

test('the MCP endpoint reads links and codes in the node\'s one analysis runner, which the service closes when it stops', async () => {
  const handed = new Set<AnalysisRunner>();
  const node = await startServer({
    rateLimit: false,
    mounts: [{ path: '/mcp', handler: (request, info) => (handed.add(info.analysis), mcp.handle(request, info)) }],
  });
  const runner = () => [...handed][0]!;
  try {
    const call = async (sessionId: string | null, message: object) => {
      const res = await fetch(`${node.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...(sessionId ? { 'Mcp-Session-Id': sessionId } : {}) }, body: JSON.stringify(message) });
      const body = await res.text();
      return { sessionId: res.headers.get('mcp-session-id') ?? sessionId ?? '', text: body };
    };
    const { sessionId } = await call(null, INITIALIZE);
    await call(sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
    const created = await call(sessionId, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_inbox', arguments: {} } });
    const address = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(created.text.replace(/\\n/g, ' '))?.[0];
    const inboxId = /Inbox (ibx_[A-Za-z0-9]+)/.exec(created.text)?.[1];
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: node.smtpPort, secure: false, ignoreTLS: true });
    await smtp.sendMail({ from: 'hello@acme.example', to: address!, subject: 'Code', text: 'Your code is 482913.' });
    smtp.close();
    const waited = await call(sessionId, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait_for_message', arguments: { inbox_id: inboxId, timeout_seconds: 60 } } });
    const messageId = /Message (msg_[A-Za-z0-9]+)/.exec(waited.text)?.[1];
    const code = await call(sessionId, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_code', arguments: { message_id: messageId } } });
    expect(code.text).toContain('482913');
    // One runner for every request to the mount, and the MCP tools' reading started its workers (nothing else here analyses mail).
    expect(handed.size).toBe(1);
    expect(runner().workersStarted).toBeGreaterThan(0);
  } finally {
    await node.close();
  }
  await expect(runner().run({ kind: 'links', html: '', text: 'x' } as never)).rejects.toThrow('shutting down');
});
