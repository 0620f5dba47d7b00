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

test.describe('the sessions table gives each caller its own share', () => {
  const GUEST_HEADERS = { Authorization: '' };
  const asGuest = (address: string) => ({ ...SERVICE, clientAddress: address });
  const initializeAs = (handler: ReturnType<typeof createMcpHttpHandler>, address: string, headers: Record<string, string> = {}) =>
    handler.handle(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...HEADERS, ...GUEST_HEADERS, ...headers }, body: JSON.stringify(INITIALIZE) }), asGuest(address));

  test('one guest address fills only its share (429 naming it, with Retry-After); a user on the same address and a guest elsewhere still open sessions', async () => {
    const handler = createMcpHttpHandler({ maxSessionsPerGuestAddress: 3 });
    try {
      for (let i = 0; i < 3; i++) expect((await initializeAs(handler, '127.0.0.1')).status).toBe(200);
      const refused = await initializeAs(handler, '127.0.0.1');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(JSON.stringify(await refused.json())).toContain('the guests of 127.0.0.1 have 3 open MCP sessions, the share one caller may hold (of 100 on this service)');
      // A guest's inbox token is still that guest: the address's share holds.
      expect((await initializeAs(handler, '127.0.0.1', { 'X-Inbox-Token': 'tmi_minted' })).status).toBe(429);
      expect((await initializeAs(handler, '127.0.0.1', { Authorization: HEADERS.Authorization })).status).toBe(200);
      expect((await initializeAs(handler, '192.0.2.9')).status).toBe(200);
    } finally {
      await handler.close();
    }
  });

  test('a burst of initializations at once cannot pass a share or the table\'s bound', async () => {
    const handler = createMcpHttpHandler({ maxSessions: 5, maxSessionsPerGuestAddress: 3 });
    try {
      const guest = await Promise.all(Array.from({ length: 8 }, () => initializeAs(handler, '127.0.0.1', { 'X-Inbox-Token': 'tmi_one' })));
      expect(guest.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    } finally {
      await handler.close();
    }
    const table = createMcpHttpHandler({ maxSessions: 5 });
    try {
      // Eight callers holding one each at most: none holds more than another, so the sixth to eighth are refused.
      const callers = await Promise.all(Array.from({ length: 8 }, (_, i) => initializeAs(table, `192.0.2.${i + 1}`)));
      expect(callers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 503, 503, 503]);
    } finally {
      await table.close();
    }
  });

  test('one credential fills only its share', async () => {
    const handler = createMcpHttpHandler({ maxSessionsPerCredential: 2 });
    try {
      expect((await initialize(handler)).status).toBe(200);
      expect((await initialize(handler)).status).toBe(200);
      const refused = await initialize(handler);
      expect(refused.status).toBe(429);
      expect(JSON.stringify(await refused.json())).toContain('this credential has 2 open MCP sessions, the share one caller may hold');
    } finally {
      await handler.close();
    }
  });

  test('when the table is full, a newcomer takes the least recently used session of the largest holder instead of waiting out its idle timeout', async () => {
    let now = 1_000_000;
    const handler = createMcpHttpHandler({ maxSessions: 4, maxSessionsPerGuestAddress: 4, now: () => now });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        now += 1000;
        ids.push((await initializeAs(handler, '127.0.0.1')).headers.get('mcp-session-id')!);
      }
      // The first session was used most recently: the second is the one to go.
      now += 1000;
      await handler.handle(post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { ...GUEST_HEADERS, 'Mcp-Session-Id': ids[0]!, 'Mcp-Protocol-Version': '2025-06-18' }), asGuest('127.0.0.1'));
      const user = await initializeAs(handler, '127.0.0.1', { Authorization: HEADERS.Authorization });
      expect(user.status).toBe(200);
      const list = (id: string) => handler.handle(post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, { ...GUEST_HEADERS, 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-06-18' }), asGuest('127.0.0.1'));
      expect((await list(ids[1]!)).status).toBe(404);
      expect((await list(ids[0]!)).status).toBe(200);
      // A caller who already holds as many as the largest holder is refused with the table's bound instead.
      const full = await initializeAs(handler, '127.0.0.1');
      expect(full.status).toBe(503);
      expect(JSON.stringify(await full.json())).toContain('This service has 4 open MCP sessions, its limit, shared fairly among its callers');
    } finally {
      await handler.close();
    }
  });
});
