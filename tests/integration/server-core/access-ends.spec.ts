/**
 * Access that ends, ends everywhere at once: an open event stream ends (with an
 * event that says why) when its session is signed out or revoked, its API key
 * revoked, its inbox deleted or expired — and no message is delivered after.
 * Real server, real SMTP, real HTTP on loopback.
 */
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import nodemailer from 'nodemailer';
import { apiOf, test, expect, KEY_A, KEY_B } from './fixtures.ts';
import type { Api } from './fixtures.ts';
import { hashSecret } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'https://extension.example/callback';

/** An open stream: every event received, and a promise of its end. */
interface OpenStream {
  events: EventSourceMessage[];
  /** Resolves when the server ended the stream (the body finished). */
  ended: Promise<void>;
  /** Resolves once an event of this name arrived. */
  next(name: string): Promise<EventSourceMessage>;
  close(): void;
}

async function openStream(server: RunningServer, inboxId: string, headers: Record<string, string>): Promise<OpenStream> {
  return openAt(server, `/inboxes/${inboxId}/stream`, headers);
}

/** The caller-wide stream of the viewer, `GET /me/events`. */
async function openEvents(server: RunningServer, headers: Record<string, string>): Promise<OpenStream> {
  return openAt(server, '/me/events', headers);
}

async function openAt(server: RunningServer, path: string, headers: Record<string, string>): Promise<OpenStream> {
  const controller = new AbortController();
  const res = await fetch(`${server.apiUrl}${path}`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  expect(res.status, await (res.ok ? Promise.resolve('') : res.text())).toBe(200);
  const events: EventSourceMessage[] = [];
  const waiters: Array<() => void> = [];
  const parser = createParser({ onEvent: (event) => {
    events.push(event);
    for (const wake of waiters.splice(0)) wake();
  } });
  const ended = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  })();
  const stream: OpenStream = {
    events,
    ended,
    async next(name) {
      for (;;) {
        const found = events.find((e) => e.event === name);
        if (found) return found;
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), ended.then(() => {
          if (!events.some((e) => e.event === name)) throw new Error(`the stream ended without "${name}"; got ${events.map((e) => e.event).join(', ')}`);
        })]);
      }
    },
    close: () => controller.abort(),
  };
  await stream.next('ready');
  return stream;
}

async function sendMail(server: RunningServer, to: string, subject: string): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ from: 'app@example.test', to, subject, text: `${subject}: your code is 123456` });
  } finally {
    transport.close();
  }
}

async function newSession(api: Api, key = KEY_A): Promise<{ token: string; code: string }> {
  const issued = await api('POST', '/extension/codes', { bearer: key, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } });
  const code = issued.body.data.code as string;
  const res = await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } });
  expect(res.status).toBe(200);
  return { token: res.body.data.accessToken, code };
}

/**
 * The stream works before access ends (one message arrives), ends with
 * `expected` after `endAccess`, and a message sent afterwards is stored but
 * never delivered to it.
 */
async function expectStreamEndsWith(
  server: RunningServer,
  stream: OpenStream,
  inbox: { address: string },
  endAccess: () => Promise<void>,
  expected: { event: string; data: Record<string, unknown> },
): Promise<void> {
  await sendMail(server, inbox.address, 'before the end');
  expect(JSON.parse((await stream.next('message')).data).subject).toBe('before the end');
  await endAccess();
  await stream.ended;
  const last = stream.events.at(-1)!;
  expect({ event: last.event, data: JSON.parse(last.data) }).toEqual(expected);
  await sendMail(server, inbox.address, 'after the end').catch(() => {});
  const subjects = stream.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data).subject);
  expect(subjects).toEqual(['before the end']);
}

test.describe('an open event stream ends when its access ends', () => {
  test.setTimeout(20_000);
  // Pings (which also check the credential) far beyond the test's timeout: only the
  // revocation event or the expiry timer can end a stream here.
  const QUIET = { rateLimit: false, streamPingIntervalMs: 600_000 } as const;
  test.use({ serverOptions: QUIET });

  test('signing the session out ends its stream with access.revoked, and mail that arrives later is not delivered', async ({ server }) => {
    const api = apiOf(server);
    const { token } = await newSession(api);
    const inbox = (await api('POST', '/inboxes', { bearer: token, body: {} })).body.data;
    const stream = await openStream(server, inbox.id, { authorization: `Bearer ${token}` });
    await expectStreamEndsWith(server, stream, inbox, async () => {
      expect((await api('DELETE', '/me/session', { bearer: token })).status).toBe(200);
    }, { event: 'access.revoked', data: { inboxId: inbox.id, reason: 'session_signed_out' } });
    // The message did arrive: it is there for a credential that still holds.
    const listed = await api('GET', `/inboxes/${inbox.id}/messages`, { bearer: KEY_A });
    expect(listed.body.data.items.map((m: { subject: string }) => m.subject)).toEqual(['after the end', 'before the end']);
  });

  test('a replayed connect code revokes its session and ends that session\'s stream with reason session_revoked', async ({ server }) => {
    const api = apiOf(server);
    const { token, code } = await newSession(api);
    const inbox = (await api('POST', '/inboxes', { bearer: KEY_A, body: {} })).body.data;
    const stream = await openStream(server, inbox.id, { authorization: `Bearer ${token}` });
    await expectStreamEndsWith(server, stream, inbox, async () => {
      const replay = await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } });
      expect(replay.status).toBe(400);
    }, { event: 'access.revoked', data: { inboxId: inbox.id, reason: 'session_revoked' } });
  });

  test('revoking an API key ends the streams it opened with reason api_key_revoked', async ({ server }) => {
    const api = apiOf(server);
    const inbox = (await api('POST', '/inboxes', { bearer: KEY_B, body: {} })).body.data;
    const stream = await openStream(server, inbox.id, { authorization: `Bearer ${KEY_B}` });
    await expectStreamEndsWith(server, stream, inbox, async () => {
      expect((await api('DELETE', '/me/api-key', { bearer: KEY_B })).body).toEqual({ data: { revoked: true } });
    }, { event: 'access.revoked', data: { inboxId: inbox.id, reason: 'api_key_revoked' } });
    expect((await api('GET', '/me', { bearer: KEY_B })).status).toBe(401);
  });

  test('revoking an API key ends every session issued under it, and those sessions\' streams, with reason api_key_revoked', async ({ server }) => {
    const api = apiOf(server);
    const { token } = await newSession(api, KEY_B);
    const inbox = (await api('POST', '/inboxes', { bearer: token, body: {} })).body.data;
    const stream = await openStream(server, inbox.id, { authorization: `Bearer ${token}` });
    const events = await openEvents(server, { authorization: `Bearer ${token}` });
    await expectStreamEndsWith(server, stream, inbox, async () => {
      expect((await api('DELETE', '/me/api-key', { bearer: KEY_B })).body).toEqual({ data: { revoked: true } });
    }, { event: 'access.revoked', data: { inboxId: inbox.id, reason: 'api_key_revoked' } });
    await events.ended;
    expect(events.events.at(-1)?.event).toBe('access.revoked');
    expect((await api('GET', '/me', { bearer: token })).status).toBe(401);
  });

  test('deleting the inbox ends a stream opened with its inbox token with inbox.deleted', async ({ server }) => {
    const api = apiOf(server);
    const inbox = (await api('POST', '/inboxes', { body: {} })).body.data;
    const stream = await openStream(server, inbox.id, { 'x-inbox-token': inbox.token });
    await expectStreamEndsWith(server, stream, inbox, async () => {
      expect((await api('DELETE', `/inboxes/${inbox.id}`, { inboxToken: inbox.token })).status).toBe(200);
    }, { event: 'inbox.deleted', data: { inboxId: inbox.id } });
  });

  test.describe('with a one-second inbox lifetime', () => {
    test.use({ serverOptions: { ...QUIET, inboxTtlSeconds: 1 } });

    test('an inbox that expires ends its stream with inbox.expired when HTTP starts refusing it, not at the next sweep', async ({ server, clock }) => {
      const api = apiOf(server);
      const inbox = (await api('POST', '/inboxes', { body: {} })).body.data;
      const stream = await openStream(server, inbox.id, { 'x-inbox-token': inbox.token });
      await expectStreamEndsWith(server, stream, inbox, async () => {
        // The injected clock passes the inbox's expiry; the sweeper (every 60 s) does not run meanwhile.
        clock.advance(new Date(inbox.expiresAt).getTime() - clock.now);
        expect((await api('GET', `/inboxes/${inbox.id}`, { inboxToken: inbox.token })).status).toBe(401);
      }, { event: 'inbox.expired', data: { inboxId: inbox.id } });
    });
  });

  test.describe('with a one-second session lifetime', () => {
    test.use({ serverOptions: { ...QUIET, sessionTtlSeconds: 1 } });

    test('a session that expires ends its stream with reason session_expired', async ({ server, clock }) => {
      const api = apiOf(server);
      const { token } = await newSession(api);
      const inbox = (await api('POST', '/inboxes', { bearer: KEY_A, body: {} })).body.data;
      const stream = await openStream(server, inbox.id, { authorization: `Bearer ${token}` });
      await sendMail(server, inbox.address, 'before the end');
      await stream.next('message');
      clock.advance(1000);
      expect((await api('GET', '/me', { bearer: token })).status).toBe(401);
      await stream.ended;
      expect(JSON.parse(stream.events.at(-1)!.data)).toEqual({ inboxId: inbox.id, reason: 'session_expired' });
      await sendMail(server, inbox.address, 'after the end');
      expect(stream.events.filter((e) => e.event === 'message')).toHaveLength(1);
    });
  });

  test('signing out one session leaves the user\'s other sessions\' streams open and delivering', async ({ server }) => {
    const api = apiOf(server);
    const first = await newSession(api);
    const second = await newSession(api);
    const inbox = (await api('POST', '/inboxes', { bearer: KEY_A, body: {} })).body.data;
    const ending = await openStream(server, inbox.id, { authorization: `Bearer ${first.token}` });
    const staying = await openStream(server, inbox.id, { authorization: `Bearer ${second.token}` });
    const keyed = await openStream(server, inbox.id, { authorization: `Bearer ${KEY_A}` });
    try {
      expect((await api('DELETE', '/me/session', { bearer: first.token })).status).toBe(200);
      await ending.ended;
      await sendMail(server, inbox.address, 'still here');
      expect(JSON.parse((await staying.next('message')).data).subject).toBe('still here');
      expect(JSON.parse((await keyed.next('message')).data).subject).toBe('still here');
    } finally {
      staying.close();
      keyed.close();
    }
  });

  test.describe('with a fast keep-alive ping', () => {
    test.use({ serverOptions: { rateLimit: false, streamPingIntervalMs: 200 } });

    test('a key revoked behind the server\'s back (another process on the same database) ends its stream at the next ping', async ({ server, service }) => {
      const api = apiOf(server);
      test.info().annotations.push({ type: 'why', description: 'no bus event reaches this server; the per-ping check does' });
      const inbox = (await api('POST', '/inboxes', { bearer: KEY_B, body: {} })).body.data;
      const stream = await openStream(server, inbox.id, { authorization: `Bearer ${KEY_B}` });
        expect(await service.store.revokeApiKey(hashSecret(KEY_B))).not.toBeNull();
      await stream.ended;
      expect(JSON.parse(stream.events.at(-1)!.data)).toEqual({ inboxId: inbox.id, reason: 'api_key_revoked' });
    });
  });

  test.describe('the caller-wide stream (GET /me/events)', () => {
    test('signing the session out ends it with access.revoked, and later mail is not announced', async ({ server }) => {
      const api = apiOf(server);
      const { token } = await newSession(api);
      const inbox = (await api('POST', '/inboxes', { bearer: token, body: {} })).body.data;
      const events = await openEvents(server, { authorization: `Bearer ${token}` });
      await sendMail(server, inbox.address, 'before the end');
      expect(JSON.parse((await events.next('message')).data).message.subject).toBe('before the end');
      expect((await api('DELETE', '/me/session', { bearer: token })).status).toBe(200);
      await events.ended;
      const last = events.events.at(-1)!;
      expect({ event: last.event, data: JSON.parse(last.data) }).toEqual({ event: 'access.revoked', data: { reason: 'session_signed_out' } });
      await sendMail(server, inbox.address, 'after the end');
      expect(events.events.filter((e) => e.event === 'message')).toHaveLength(1);
    });

    test('revoking the API key ends it with reason api_key_revoked', async ({ server }) => {
      const api = apiOf(server);
      const events = await openEvents(server, { authorization: `Bearer ${KEY_B}` });
      expect((await api('DELETE', '/me/api-key', { bearer: KEY_B })).status).toBe(200);
      await events.ended;
      expect(JSON.parse(events.events.at(-1)!.data)).toEqual({ reason: 'api_key_revoked' });
    });

    test('deleting the inbox ends the one opened with its inbox token with inbox.deleted', async ({ server }) => {
      const api = apiOf(server);
      const inbox = (await api('POST', '/inboxes', { body: {} })).body.data;
      const events = await openEvents(server, { 'x-inbox-token': inbox.token });
      expect((await api('DELETE', `/inboxes/${inbox.id}`, { inboxToken: inbox.token })).status).toBe(200);
      await events.ended;
      const last = events.events.at(-1)!;
      expect({ event: last.event, data: JSON.parse(last.data) }).toEqual({ event: 'inbox.deleted', data: { inboxId: inbox.id } });
    });

    test('another user\'s key being revoked leaves it open', async ({ server }) => {
      const api = apiOf(server);
      const inbox = (await api('POST', '/inboxes', { bearer: KEY_A, body: {} })).body.data;
      const events = await openEvents(server, { authorization: `Bearer ${KEY_A}` });
      try {
        expect((await api('DELETE', '/me/api-key', { bearer: KEY_B })).status).toBe(200);
        await sendMail(server, inbox.address, 'still here');
        expect(JSON.parse((await events.next('message')).data).message.subject).toBe('still here');
      } finally {
        events.close();
      }
    });
  });
});
