/**
 * A session issued under an API key with caps of its own is charged to the
 * key by every bound (callerOf): it shares the key's request window, its
 * open-stream cap, its inbox cap, its share of the node's checks, its SMS
 * Verify services and its MCP sessions, so making sessions lifts nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { createApp, createServerContext, createSqliteStore, hashSecret, resolveConfig, startServer } from '../../../src/server/index.ts';
import type { RunningServer, StartServerOptions, Store } from '../../../src/server/index.ts';
import { createMcpHttpHandler } from '../../../src/mcp/index.ts';

const KEY = `tm_${'c'.repeat(40)}`;
const OTHER_KEY = `tm_${'d'.repeat(40)}`;

type ApiKeyCaps = NonNullable<NonNullable<Parameters<Store['addApiKey']>[2]>['caps']>;

async function cappedStore(caps: ApiKeyCaps): Promise<Store> {
  const store = createSqliteStore();
  const user = await store.createUser({ email: 'capped@users.inboxkit.test', planId: 'premium' });
  await store.addApiKey(user.id, hashSecret(KEY), { caps });
  return store;
}

async function capped(caps: ApiKeyCaps, options: Omit<StartServerOptions, 'store'> = {}): Promise<RunningServer> {
  return startServer({ port: 0, smtpPort: 0, ...options, store: await cappedStore(caps) });
}

/** A session token for the key, through the PKCE exchange of the extension sign-in. */
async function sessionOf(server: { apiUrl: string; fetch?: (url: string, init: RequestInit) => Response | Promise<Response> }): Promise<string> {
  const fetch = server.fetch ?? globalThis.fetch;
  const verifier = randomBytes(48).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const codes = await fetch(`${server.apiUrl}/extension/codes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ codeChallenge: challenge, codeChallengeMethod: 'S256', redirectUri: 'https://ext.test/cb' }),
  });
  const { code } = ((await codes.json()) as { data: { code: string } }).data;
  const token = await fetch(`${server.apiUrl}/extension/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, codeVerifier: verifier, redirectUri: 'https://ext.test/cb' }) });
  return ((await token.json()) as { data: { accessToken: string } }).data.accessToken;
}

test('a session under a key capped at 2 streams is refused a third stream while the key holds two', async () => {
  const server = await capped({ maxStreams: 2 });
  const aborts: AbortController[] = [];
  try {
    const session = await sessionOf(server);
    const inbox = ((await (await fetch(`${server.apiUrl}/inboxes`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: '{}' })).json()) as { data: { id: string } }).data;
    const open = async (credential: string) => {
      const abort = new AbortController();
      aborts.push(abort);
      return fetch(`${server.apiUrl}/inboxes/${inbox.id}/stream`, { headers: { authorization: `Bearer ${credential}` }, signal: abort.signal });
    };
    expect((await open(KEY)).status).toBe(200);
    expect((await open(KEY)).status).toBe(200);
    const third = await open(session);
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('limit_reached');
  } finally {
    for (const abort of aborts) abort.abort();
    await server.close();
  }
});

test('a session under a key capped at a request rate shares the key\'s window: once the key is refused, so is the session', async () => {
  const server = await capped({ requestsPerMinute: 12 });
  try {
    const session = await sessionOf(server);
    let keyed = 0;
    for (; keyed < 40; keyed++) {
      const response = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${KEY}` } });
      if (response.status === 429) break;
    }
    expect(keyed, 'the key is refused within its allowance').toBeLessThan(12);
    const bySession = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${session}` } });
    expect(bySession.status).toBe(429);
    expect(((await bySession.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
  } finally {
    await server.close();
  }
});

test('a session under a key capped at one inbox cannot make a second while the key holds one', async () => {
  const server = await capped({ maxInboxes: 1 });
  try {
    const session = await sessionOf(server);
    const create = (credential: string) => fetch(`${server.apiUrl}/inboxes`, { method: 'POST', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' }, body: '{}' });
    expect((await create(KEY)).status).toBe(200);
    const second = await create(session);
    expect(second.status).toBe(403);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('plan_required');
  } finally {
    await server.close();
  }
});

test('a session under a key shares the key\'s share of the node\'s authentication checks: with the key\'s four slots held, the session is refused and another caller is not', async () => {
  const store = await cappedStore({ requestsPerMinute: 1000 });
  const ctx = createServerContext({ store, config: resolveConfig({ apiKeys: [OTHER_KEY] }) });
  const app = createApp(ctx);
  const origin = 'http://127.0.0.1';
  const request = (path: string, credential: string, body?: object) =>
    app.request(`${origin}/api/v1${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', ...(body ? { 'content-length': String(JSON.stringify(body).length) } : {}) }, body: body ? JSON.stringify(body) : undefined });
  try {
    for (const key of [OTHER_KEY]) {
      const user = await store.createUser({ email: 'other@users.inboxkit.test', planId: 'premium' });
      await store.addApiKey(user.id, hashSecret(key), { configured: true });
    }
    await store.syncDomains(ctx.config.domains);
    const session = await sessionOf({ apiUrl: `${origin}/api/v1`, fetch: (url: string, init: RequestInit) => app.request(url, init) });
    const phone = async (credential: string) => {
      const created = ((await (await request('/phones', credential, {})).json()) as { data: { id: string; phoneNumber: string } }).data;
      expect((await request('/sms', credential, { to: created.phoneNumber, text: 'Your code is 123456' })).status).toBe(200);
      const list = ((await (await request(`/inboxes/${created.id}/messages`, credential)).json()) as { data: { items: Array<{ id: string }> } }).data;
      return list.items[0]!.id;
    };
    const [keyMessage, otherMessage] = [await phone(KEY), await phone(OTHER_KEY)];
    const held = Array.from({ length: 4 }, () => ctx.pools.checks.authentication.acquire({ credential: `key:${hashSecret(KEY)}`, address: '127.0.0.1', guest: false }));
    const bySession = await request(`/messages/${keyMessage}/authentication`, session, { dns: {} });
    expect(bySession.status).toBe(429);
    expect(((await bySession.json()) as { error: { code: string } }).error.code).toBe('limit_reached');
    expect((await request(`/messages/${otherMessage}/authentication`, OTHER_KEY, { dns: {} })).status).not.toBe(429);
    for (const release of held) release();
  } finally {
    await ctx.pools.close();
    ctx.faults.close();
    await ctx.intake.close();
  }
});

test('a session under a key shares the key\'s Twilio Verify services: with a bound of one, the session\'s service replaces the key\'s', async () => {
  const server = await capped({ requestsPerMinute: 1000 }, { smsVerifyServicesPerCaller: 1 });
  try {
    const session = await sessionOf(server);
    const service = async (credential: string, name: string) => {
      const response = await fetch(`${server.url}/sms/twilio/verify/v2/Services`, { method: 'POST', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/x-www-form-urlencoded' }, body: `FriendlyName=${name}` });
      return ((await response.json()) as { sid: string }).sid;
    };
    const phone = ((await (await fetch(`${server.apiUrl}/phones`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: '{}' })).json()) as { data: { id: string; phoneNumber: string } }).data;
    const keyService = await service(KEY, 'KeyApp');
    await service(session, 'SessionApp');
    // The key's service went: a verification on its sid texts the default name.
    const verify = await fetch(`${server.url}/sms/twilio/verify/v2/Services/${keyService}/Verifications`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ To: phone.phoneNumber, Channel: 'sms' }).toString() });
    expect(verify.status).toBe(201);
    const messages = async () => ((await (await fetch(`${server.apiUrl}/inboxes/${phone.id}/messages`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { data: { items: Array<{ preview?: string; text?: string }> } }).data.items;
    await expect.poll(async () => (await messages()).length).toBe(1);
    expect(JSON.stringify(await messages())).toContain('Your Verify verification code is');
  } finally {
    await server.close();
  }
});

test('a session under a key counts with the key\'s MCP sessions: with one per credential, the session\'s initialize is refused while the key holds one', async () => {
  const mcp = createMcpHttpHandler({ maxSessionsPerCredential: 1 });
  const server = await capped({ requestsPerMinute: 1000 }, { mounts: [{ path: '/mcp', handler: (request, info) => mcp.handle(request, info) }] });
  const initialize = (credential: string) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
  try {
    const session = await sessionOf(server);
    const first = await initialize(KEY);
    expect(first.status).toBe(200);
    await first.text();
    const second = await initialize(session);
    expect(second.status).toBe(429);
    expect(await second.text()).toContain('MCP sessions');
  } finally {
    await mcp.close();
    await server.close();
  }
});
