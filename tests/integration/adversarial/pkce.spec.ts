/**
 * PKCE (RFC 7636, S256) on the connect-code exchange: the Appendix B vector
 * works; replay, expiry, a wrong verifier, `plain`, verifiers of 42 and 129
 * characters and a wrong redirect URI are each refused.
 */
import { createHash, randomBytes } from 'node:crypto';
import { KEY_A } from './tenants.ts';
import { expect, figure, test } from './helpers.ts';
import type { Harness } from './helpers.ts';

let clock = Date.now();
test.use({ harnessOptions: { apiKeys: [KEY_A], now: () => clock, connectCodeTtlSeconds: 300 } });
test.beforeEach(() => {
  clock = Date.now();
});

const REDIRECT = 'https://ext.test/callback';
const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');
const verifierOf = (length: number) => randomBytes(length).toString('base64url').slice(0, length);

async function issue(h: Harness, challenge: string, method = 'S256', redirectUri = REDIRECT) {
  return h.call('/extension/codes', {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
    body: JSON.stringify({ codeChallenge: challenge, codeChallengeMethod: method, redirectUri }),
  });
}
async function codeFor(h: Harness, challenge: string): Promise<string> {
  const res = await issue(h, challenge);
  expect(res.status, res.text).toBe(200);
  return (res.json as { data: { code: string } }).data.code;
}
function exchange(h: Harness, code: string, codeVerifier: string, redirectUri = REDIRECT) {
  return h.call('/extension/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, codeVerifier, redirectUri }) });
}
const codeOf = (res: { json: unknown }) => (res.json as { error?: { code: string } }).error?.code;

test('the RFC 7636 Appendix B vector exchanges; the session works', async ({ harness }) => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  expect(s256(verifier)).toBe(challenge);
  const res = await exchange(harness, await codeFor(harness, challenge), verifier);
  expect(res.status).toBe(200);
  const token = (res.json as { data: { accessToken: string } }).data.accessToken;
  const me = await harness.call('/me', { headers: { authorization: `Bearer ${token}` } });
  expect((me.json as { data: { credential: string } }).data.credential).toBe('session');
  figure('pkce vector', 'RFC 7636 Appendix B verifier → challenge E9Melhoa…cM exchanged, session accepted');
});

test('every bad exchange is refused: replay (revoking what it issued), expiry, wrong verifier, plain, 42- and 129-character verifiers, wrong redirect URI', async ({ harness }) => {
  const refusals: string[] = [];
  const refused = (name: string, res: { status: number; json: unknown }, codes = ['invalid_grant']) => {
    expect(res.status, name).toBe(400);
    expect(codes, name).toContain(codeOf(res));
    refusals.push(name);
  };

  // Replay: the second exchange is refused and the first session is revoked.
  const v1 = verifierOf(64);
  const code1 = await codeFor(harness, s256(v1));
  const first = await exchange(harness, code1, v1);
  expect(first.status).toBe(200);
  const session = (first.json as { data: { accessToken: string } }).data.accessToken;
  expect((await harness.call('/me', { headers: { authorization: `Bearer ${session}` } })).status).toBe(200);
  refused('replay', await exchange(harness, code1, v1));
  expect((await harness.call('/me', { headers: { authorization: `Bearer ${session}` } })).status).toBe(401);

  // Expiry.
  const v2 = verifierOf(64);
  const code2 = await codeFor(harness, s256(v2));
  clock += 301_000;
  refused('expired', await exchange(harness, code2, v2));

  // Wrong verifier, and the code is spent by it.
  const v3 = verifierOf(64);
  const code3 = await codeFor(harness, s256(v3));
  refused('wrong verifier', await exchange(harness, code3, verifierOf(64)));
  refused('right verifier after a wrong one (code spent)', await exchange(harness, code3, v3));

  // plain: refused when issuing, and a verifier equal to the S256 challenge does not pass.
  const v4 = verifierOf(43);
  refused('plain at issue', await issue(harness, v4, 'plain'), ['validation_error']);
  const code4 = await codeFor(harness, s256(v4));
  refused('challenge sent as verifier (plain)', await exchange(harness, code4, s256(v4)));

  // Verifier lengths outside 43..128, even when their S256 matches.
  for (const length of [42, 129]) {
    const v = verifierOf(length);
    refused(`verifier of ${length}`, await exchange(harness, await codeFor(harness, s256(v)), v), ['invalid_grant', 'validation_error']);
  }
  // The bounds themselves pass.
  for (const length of [43, 128]) {
    const v = verifierOf(length);
    expect((await exchange(harness, await codeFor(harness, s256(v)), v)).status, `verifier of ${length}`).toBe(200);
  }

  // Wrong redirect URI, including a prefix-extended one.
  for (const uri of ['https://evil.test/callback', `${REDIRECT}/x`, `${REDIRECT}?a=1`, REDIRECT.toUpperCase()]) {
    const v = verifierOf(64);
    refused(`redirect ${uri}`, await exchange(harness, await codeFor(harness, s256(v)), v, uri));
  }
  // An unknown code.
  refused('unknown code', await exchange(harness, 'tmc_unknownunknownunknownunknownunknown', verifierOf(64)));

  figure('pkce', `${refusals.length}/${refusals.length} bad exchanges refused (${refusals.join('; ')}); replay revoked the session it issued; 43 and 128 accepted`);
});
