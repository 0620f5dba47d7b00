import { test, expect, expectError, KEY_A, KEY_B } from './fixtures.ts';
import type { Api, CallOptions } from './fixtures.ts';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'https://extension.example/callback';

/** Signs in user A through the PKCE exchange and returns the session token. */
async function sessionOfA(api: Api): Promise<string> {
  const code = (await api('POST', '/extension/codes', { bearer: KEY_A, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } })).body.data.code;
  return (await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } })).body.data.accessToken;
}

/** The inbox endpoints that take an id, each with a valid request for it. */
const byId: Array<[string, string, CallOptions['body']]> = [
  ['GET', '', undefined],
  ['PATCH', '', { label: 'x' }],
  ['DELETE', '', undefined],
];

test('without a credential, every inbox endpoint but creation is 401 unauthorized', async ({ api }) => {
  const inbox = (await api('POST', '/inboxes')).body.data;
  expectError(await api('GET', '/inboxes'), 401, 'unauthorized');
  for (const [method, , body] of byId) expectError(await api(method, `/inboxes/${inbox.id}`, { body }), 401, 'unauthorized');
  expectError(await api('POST', '/extension/codes', { body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } }), 401, 'unauthorized');
  expectError(await api('DELETE', '/me/session'), 401, 'unauthorized');
});

test('a credential that is sent but invalid is 401 everywhere, also where none is needed', async ({ api }) => {
  const bad: CallOptions[] = [
    { bearer: 'tm_notakeynotakeynotakeynotakeynotakey' },
    { bearer: 'tms_notasession' },
    { inboxToken: 'tmi_notatoken' },
    { headers: { authorization: 'Basic dXNlcjpwYXNz' } },
    { headers: { authorization: 'Bearer' } },
  ];
  for (const credential of bad) {
    for (const [method, path] of [['GET', '/domains'], ['GET', '/me'], ['POST', '/inboxes'], ['GET', '/inboxes'], ['GET', '/healthz']] as const) {
      const res = await api(method, path, credential);
      expectError(res, 401, 'unauthorized');
    }
  }
});

test('another inbox\'s token sees the inbox as not found, for every inbox endpoint', async ({ api }) => {
  const mine = (await api('POST', '/inboxes')).body.data;
  const theirs = (await api('POST', '/inboxes')).body.data;
  for (const [method, , body] of byId) {
    expectError(await api(method, `/inboxes/${theirs.id}`, { inboxToken: mine.token, body }), 404, 'inbox_not_found');
  }
  // The same answer as for an id that does not exist.
  const missing = await api('GET', '/inboxes/ibx_000000000000000000000000', { inboxToken: mine.token });
  expectError(missing, 404, 'inbox_not_found');
  expect((await api('GET', `/inboxes/${theirs.id}`, { inboxToken: theirs.token })).status).toBe(200);
});

test('another user\'s key sees the inbox as not found, and a guest inbox is no user\'s', async ({ api }) => {
  const ofA = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data;
  const guest = (await api('POST', '/inboxes')).body.data;
  for (const [method, , body] of byId) {
    expectError(await api(method, `/inboxes/${ofA.id}`, { bearer: KEY_B, body }), 404, 'inbox_not_found');
    expectError(await api(method, `/inboxes/${guest.id}`, { bearer: KEY_A, body }), 404, 'inbox_not_found');
  }
  expect((await api('GET', '/inboxes', { bearer: KEY_B })).body.data.items).toEqual([]);
  // The owner and the inbox's own token both reach it.
  expect((await api('GET', `/inboxes/${ofA.id}`, { bearer: KEY_A })).status).toBe(200);
  expect((await api('GET', `/inboxes/${ofA.id}`, { inboxToken: ofA.token })).status).toBe(200);
});

test('a session acts as its user until it is signed out, then it is 401', async ({ api }) => {
  const ofA = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data;
  const session = await sessionOfA(api);
  expect((await api('GET', `/inboxes/${ofA.id}`, { bearer: session })).status).toBe(200);
  const me = await api('GET', '/me', { bearer: session });
  expect(me.body.data).toMatchObject({ authenticated: true, credential: 'session', plan: { id: 'premium' } });
  expect(me.body.data.user.id).toBe((await api('GET', '/me', { bearer: KEY_A })).body.data.user.id);

  expect((await api('DELETE', '/me/session', { bearer: session })).body).toEqual({ data: { signedOut: true } });
  for (const [method, , body] of byId) expectError(await api(method, `/inboxes/${ofA.id}`, { bearer: session, body }), 401, 'unauthorized');
  expectError(await api('GET', '/me', { bearer: session }), 401, 'unauthorized');
  expectError(await api('DELETE', '/me/session', { bearer: session }), 401, 'unauthorized');
  // The API key is unaffected.
  expect((await api('GET', `/inboxes/${ofA.id}`, { bearer: KEY_A })).status).toBe(200);
});

test('GET /me describes each kind of caller', async ({ api }) => {
  const anonymous = (await api('GET', '/me')).body.data;
  expect(anonymous).toMatchObject({ authenticated: false, credential: 'anonymous', user: null, plan: { id: 'guest' } });
  expect(anonymous.plan.entitlements).toEqual({
    apiKeys: false,
    customAddresses: true,
    forwarding: true,
    maxActiveInboxes: null,
    inboxTtlSeconds: 86_400,
    maxMessageBytes: 10 * 1024 * 1024,
    requestsPerMinute: 6000,
  });
  const inbox = (await api('POST', '/inboxes')).body.data;
  expect((await api('GET', '/me', { inboxToken: inbox.token })).body.data).toMatchObject({ authenticated: true, credential: 'inboxToken', user: null, plan: { id: 'guest' } });
  const withKey = (await api('GET', '/me', { bearer: KEY_A })).body.data;
  expect(withKey).toMatchObject({ authenticated: true, credential: 'apiKey', user: { id: expect.stringMatching(/^usr_/), email: expect.any(String) }, plan: { id: 'premium' } });
  expect(withKey.plan.entitlements.apiKeys).toBe(true);
});

test('DELETE /me/session with an API key or an inbox token is not_a_session', async ({ api }) => {
  const inbox = (await api('POST', '/inboxes')).body.data;
  expectError(await api('DELETE', '/me/session', { bearer: KEY_A }), 400, 'not_a_session');
  expectError(await api('DELETE', '/me/session', { inboxToken: inbox.token }), 400, 'not_a_session');
});
