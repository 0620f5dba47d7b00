/**
 * The Streamable HTTP handler's bounds, in-process with the real SDK: the
 * number of open sessions is capped, and an idle session is closed.
 */
import { test, expect } from '@playwright/test';
import { createMcpHttpHandler } from '../../../src/mcp/index.ts';

const SERVICE = { apiUrl: 'http://127.0.0.1:9/api/v1' };
const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: 'Bearer tm_unitunitunitunitunitunitunit01' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unit', version: '1' } } };

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
}

async function initialize(handler: ReturnType<typeof createMcpHttpHandler>): Promise<Response> {
  return handler.handle(post(INITIALIZE), SERVICE);
}

const listTools = (sessionId: string) => post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, { 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18' });

test('one session more than maxSessions is refused with 503 until a session ends', async () => {
  const handler = createMcpHttpHandler({ maxSessions: 2 });
  try {
    const first = await initialize(handler);
    const second = await initialize(handler);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await initialize(handler);
    expect(third.status).toBe(503);
    expect(JSON.stringify(await third.json())).toContain('2 open MCP sessions, its limit');

    const ended = await handler.handle(new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { ...HEADERS, 'Mcp-Session-Id': first.headers.get('mcp-session-id')! } }), SERVICE);
    expect(ended.status).toBe(200);
    expect((await initialize(handler)).status).toBe(200);
  } finally {
    await handler.close();
  }
});

test('a session idle for longer than idleTimeoutMs is closed, and its id answers 404', async () => {
  let now = 1_000_000;
  const handler = createMcpHttpHandler({ idleTimeoutMs: 60_000, now: () => now });
  try {
    const sessionId = (await initialize(handler)).headers.get('mcp-session-id')!;
    await handler.handle(post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18' }), SERVICE);
    now += 30_000;
    expect((await handler.handle(listTools(sessionId), SERVICE)).status).toBe(200);
    now += 60_001;
    expect((await handler.handle(listTools(sessionId), SERVICE)).status).toBe(404);
  } finally {
    await handler.close();
  }
});

test('a request with no session that is not an initialize POST is told to initialize', async () => {
  const handler = createMcpHttpHandler();
  const res = await handler.handle(new Request('http://127.0.0.1/mcp', { method: 'GET', headers: HEADERS }), SERVICE);
  expect(res.status).toBe(400);
  expect(JSON.stringify(await res.json())).toContain('initialize request');
});
