/**
 * A session issued under an API key with caps of its own is charged to the
 * key by every bound (callerOf): it shares the key's request window and its
 * open-stream cap, so making sessions lifts nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { createSqliteStore, hashSecret, startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

const KEY = `tm_${'c'.repeat(40)}`;

async function capped(caps: { maxStreams?: number; requestsPerMinute?: number }): Promise<RunningServer> {
  const store = createSqliteStore();
  const user = await store.createUser({ email: 'capped@users.inboxkit.test', planId: 'premium' });
  await store.addApiKey(user.id, hashSecret(KEY), { caps });
  return startServer({ port: 0, smtpPort: 0, store });
}

/** A session token for the key, through the PKCE exchange of the extension sign-in. */
async function sessionOf(server: RunningServer): Promise<string> {
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
