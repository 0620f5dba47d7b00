import { test, expect, expectError, KEY_A, KEY_B } from './fixtures.ts';
import type { Api } from './fixtures.ts';

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'https://extension.example/callback';

async function newCode(api: Api, redirectUri = REDIRECT): Promise<string> {
  const res = await api('POST', '/extension/codes', { bearer: KEY_A, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri } });
  expect(res.status).toBe(200);
  return res.body.data.code;
}

test('a connect code and the RFC 7636 verifier give a bearer session token for the user', async ({ api, clock }) => {
  const issued = await api('POST', '/extension/codes', { bearer: KEY_A, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } });
  expect(issued.body.data).toEqual({ code: expect.stringMatching(/^tmc_/), expiresAt: new Date(clock.now + 300_000).toISOString() });
  const res = await api('POST', '/extension/token', { body: { code: issued.body.data.code, codeVerifier: VERIFIER, redirectUri: REDIRECT } });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({
    accessToken: expect.stringMatching(/^tms_/),
    tokenType: 'Bearer',
    expiresIn: 30 * 86_400,
    expiresAt: new Date(clock.now + 30 * 86_400_000).toISOString(),
  });
  expect((await api('GET', '/me', { bearer: res.body.data.accessToken })).body.data.credential).toBe('session');
});

test('a code is single use: replaying it is invalid_grant and revokes the session it issued', async ({ api }) => {
  const code = await newCode(api);
  const first = await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } });
  const session = first.body.data.accessToken;
  expect((await api('GET', '/me', { bearer: session })).status).toBe(200);
  const replay = await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } });
  expectError(replay, 400, 'invalid_grant');
  expect(replay.body.error.message).toContain('already used');
  expectError(await api('GET', '/me', { bearer: session }), 401, 'unauthorized');
});

test('a wrong verifier is invalid_grant and spends the code', async ({ api }) => {
  const code = await newCode(api);
  const wrong = await api('POST', '/extension/token', { body: { code, codeVerifier: `${VERIFIER.slice(0, -1)}A`, redirectUri: REDIRECT } });
  expectError(wrong, 400, 'invalid_grant');
  expect(wrong.body.error.message).toContain('codeVerifier');
  expectError(await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } }), 400, 'invalid_grant');
});

test('a redirect URI that differs in any way is invalid_grant and spends the code', async ({ api }) => {
  for (const other of [`${REDIRECT}/`, REDIRECT.toUpperCase(), `${REDIRECT}?x=1`]) {
    const code = await newCode(api);
    const res = await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: other } });
    expectError(res, 400, 'invalid_grant');
    expect(res.body.error.message).toContain('redirectUri');
    expectError(await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } }), 400, 'invalid_grant');
  }
});

test('a code past its five minutes is invalid_grant', async ({ api, clock }) => {
  const code = await newCode(api);
  clock.advance(300_000);
  const res = await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } });
  expectError(res, 400, 'invalid_grant');
  expect(res.body.error.message).toContain('expired');
});

test('an unknown code is invalid_grant', async ({ api }) => {
  expectError(await api('POST', '/extension/token', { body: { code: 'tmc_nope', codeVerifier: VERIFIER, redirectUri: REDIRECT } }), 400, 'invalid_grant');
});

test('a session expires after its lifetime', async ({ api, clock }) => {
  const code = await newCode(api);
  const session = (await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } })).body.data.accessToken;
  clock.advance(30 * 86_400_000);
  expectError(await api('GET', '/me', { bearer: session }), 401, 'unauthorized');
});

test('only S256 challenges of the right shape are accepted when issuing a code', async ({ api }) => {
  const plain = await api('POST', '/extension/codes', { bearer: KEY_A, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'plain', redirectUri: REDIRECT } });
  expectError(plain, 400, 'validation_error');
  expect(plain.body.error.message).toContain('codeChallengeMethod');
  const short = await api('POST', '/extension/codes', { bearer: KEY_A, body: { codeChallenge: 'abc', codeChallengeMethod: 'S256', redirectUri: REDIRECT } });
  expectError(short, 400, 'validation_error');
  expect(short.body.error.message).toContain('codeChallenge');
});

test('a session cannot issue connect codes, so no session makes another; an inbox token cannot either', async ({ api }) => {
  const session = (await api('POST', '/extension/token', { body: { code: await newCode(api), codeVerifier: VERIFIER, redirectUri: REDIRECT } })).body.data.accessToken;
  const bySession = await api('POST', '/extension/codes', { bearer: session, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } });
  expectError(bySession, 403, 'plan_required');
  expect(bySession.body.error.message).toContain('a session cannot make another session');
  const inbox = (await api('POST', '/inboxes')).body.data;
  const byToken = await api('POST', '/extension/codes', { inboxToken: inbox.token, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } });
  expectError(byToken, 403, 'plan_required');
});

test('revoking the API key ends the sessions issued under it; the other key\'s sessions hold', async ({ api }) => {
  const exchange = async (key: string) => {
    const issued = await api('POST', '/extension/codes', { bearer: key, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } });
    return (await api('POST', '/extension/token', { body: { code: issued.body.data.code, codeVerifier: VERIFIER, redirectUri: REDIRECT } })).body.data.accessToken as string;
  };
  const [first, second, other] = [await exchange(KEY_A), await exchange(KEY_A), await exchange(KEY_B)];
  expect((await api('GET', '/me', { bearer: first })).status).toBe(200);
  expect((await api('DELETE', '/me/api-key', { bearer: KEY_A })).status).toBe(200);
  expectError(await api('GET', '/me', { bearer: first }), 401, 'unauthorized');
  expectError(await api('GET', '/me', { bearer: second }), 401, 'unauthorized');
  expect((await api('GET', '/me', { bearer: other })).status).toBe(200);
});

test('a connect code whose API key is revoked before the exchange makes no session', async ({ api }) => {
  const code = await newCode(api);
  expect((await api('DELETE', '/me/api-key', { bearer: KEY_A })).status).toBe(200);
  const res = await api('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } });
  expectError(res, 400, 'invalid_grant');
  expect(res.body.error.message).toContain('API key');
});

test('a redirect URI that would run script or read local data is refused when a code is issued', async ({ api }) => {
  for (const redirectUri of ['javascript:alert(1)', 'JavaScript:fetch("//x")', 'vbscript:x', 'data:text/html,<script>1</script>', 'file:///etc/passwd', 'not a uri']) {
    const res = await api('POST', '/extension/codes', { bearer: KEY_A, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri } });
    expectError(res, 400, 'validation_error');
    expect(res.body.error.message).toContain('redirectUri');
  }
  for (const redirectUri of [REDIRECT, 'chrome-extension://abcdefghijklmnop/callback.html', 'http://127.0.0.1:5173/cb']) {
    expect((await api('POST', '/extension/codes', { bearer: KEY_A, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri } })).status).toBe(200);
  }
});

test('a token request with a missing field is a validation_error naming it', async ({ api }) => {
  const res = await api('POST', '/extension/token', { body: { code: 'tmc_x', redirectUri: REDIRECT } });
  expectError(res, 400, 'validation_error');
  expect(res.body.error.message).toContain('codeVerifier');
});
