/**
 * What the MCP endpoint does for a caller is charged to that caller (issue 36):
 * the event stream of a `wait_for_message` counts against the caller's own
 * client address, not the service's loopback that the MCP server calls the API
 * from, and it ends when the caller's MCP client goes away rather than at the
 * wait's timeout. The caller here talks from 127.0.0.2, the MCP server's own
 * calls come from 127.0.0.1, as on any machine where the two differ.
 */
import { test, expect } from '@playwright/test';
import { Agent, fetch as undiciFetch } from 'undici';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { createMcpHttpHandler } from '../../../src/mcp/index.ts';
import type { McpHttpHandler } from '../../../src/mcp/index.ts';

const CALLER = '127.0.0.2';
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2025-06-18' };

let server: RunningServer;
let mcp: McpHttpHandler;
let agent: Agent;

test.beforeEach(async () => {
  mcp = createMcpHttpHandler();
  // Two streams per address: one held by the test, one by the MCP wait.
  server = await startServer({ rateLimit: false, maxStreamsPerAddress: 2, mounts: [{ path: '/mcp', handler: (request, info) => mcp.handle(request, info) }] });
  agent = new Agent({ localAddress: CALLER });
});

test.afterEach(async () => {
  await mcp.close();
  await server.close();
  await agent.close();
});

/** A request from the caller's address. */
function fromCaller(url: string, init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {}) {
  return undiciFetch(url, { ...init, dispatcher: agent });
}

/** Posts one JSON-RPC message to the caller's MCP session; the answer's JSON-RPC result (SSE or JSON). */
async function rpc(sessionId: string | null, message: object): Promise<{ sessionId: string; result: unknown }> {
  const res = await fromCaller(`${server.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...(sessionId ? { 'Mcp-Session-Id': sessionId } : {}) }, body: JSON.stringify(message) });
  const text = await res.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return { sessionId: res.headers.get('mcp-session-id') ?? sessionId ?? '', result: (JSON.parse(json) as { result?: unknown } | null)?.result };
}

/** Opens an inbox stream from the caller's address: its status, and a function that closes it. */
async function openStream(inbox: { id: string; token: string }): Promise<{ status: number; close(): void }> {
  const stop = new AbortController();
  const res = await fromCaller(`${server.apiUrl}/inboxes/${inbox.id}/stream`, { headers: { 'x-inbox-token': inbox.token }, signal: stop.signal });
  if (res.status !== 200) await res.text();
  return { status: res.status, close: () => stop.abort() };
}

test('a wait_for_message stream counts against the MCP caller\'s address, and ends when its client goes away', async () => {
  test.setTimeout(180_000);
  // The caller's own inbox, for the streams it opens directly.
  const created = await fromCaller(`${server.apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const own = ((await created.json()) as { data: { id: string; token: string } }).data;
  const held = await openStream(own);
  expect(held.status).toBe(200);

  const { sessionId } = await rpc(null, INITIALIZE);
  await rpc(sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const inbox = await rpc(sessionId, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_inbox', arguments: {} } });
  const inboxId = /Inbox (ibx_[A-Za-z0-9]+)/.exec(JSON.stringify(inbox.result))?.[1];
  expect(inboxId).toBeTruthy();

  // The wait, whose client will go away.
  const gone = new AbortController();
  const wait = fromCaller(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait_for_message', arguments: { inbox_id: inboxId, timeout_seconds: 300 } } }),
    signal: gone.signal,
  }).catch(() => null);

  // Its stream takes the caller's second slot: one more stream from the caller is refused…
  await expect
    .poll(async () => {
      const extra = await openStream(own);
      extra.close();
      return extra.status;
    }, { timeout: 60_000 })
    .toBe(429);
  // …while the service's loopback, where the MCP server calls from, is not charged with it.
  const local = await fetch(`${server.apiUrl}/inboxes/${own.id}/stream`, { headers: { 'x-inbox-token': own.token } });
  expect(local.status).toBe(200);
  await local.body?.cancel();

  // The client goes away: the wait ends, and its stream gives the slot back long before the 300 s.
  gone.abort();
  await wait;
  await expect
    .poll(async () => {
      const again = await openStream(own);
      again.close();
      return again.status;
    }, { timeout: 60_000 })
    .toBe(200);
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  held.close();
});
