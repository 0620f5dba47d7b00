/**
 * The authorization matrix: every endpoint that takes an id × every kind of
 * credential × another tenant's resources, id swaps included. Every request is
 * refused and no byte of the other tenant's data comes back.
 */
import { B_MARKERS, KEY_A, KEY_B, setUpTenants } from './tenants.ts';
import type { Tenants } from './tenants.ts';
import { expect, figure, test } from './helpers.ts';
import type { Harness } from './helpers.ts';

let clock = Date.now();
test.use({ harnessOptions: { apiKeys: [KEY_A, KEY_B], now: () => clock } });
test.beforeEach(() => {
  clock = Date.now();
});

interface Credential {
  kind: string;
  headers: Record<string, string>;
  /** 401 for credentials that are not valid at all, 404 for valid ones of someone else. */
  expect: 401 | 404;
}

function credentialsOf(t: Tenants): Credential[] {
  return [
    { kind: 'none', headers: {}, expect: 401 },
    { kind: 'malformed: Basic', headers: { authorization: 'Basic YTpi' }, expect: 401 },
    { kind: 'malformed: empty Bearer', headers: { authorization: 'Bearer' }, expect: 401 },
    { kind: 'malformed: two tokens', headers: { authorization: `Bearer ${KEY_B} ${KEY_B}` }, expect: 401 },
    { kind: 'malformed: B token in the wrong header', headers: { authorization: `Bearer ${t.b.inbox.token}` }, expect: 401 },
    { kind: 'unknown API key', headers: { authorization: 'Bearer tm_unknownunknownunknownunknown' }, expect: 401 },
    { kind: 'unknown session', headers: { authorization: 'Bearer tms_unknownunknownunknownunknown' }, expect: 401 },
    { kind: 'unknown inbox token', headers: { 'x-inbox-token': 'tmi_unknownunknownunknownunknown' }, expect: 401 },
    { kind: 'another inbox\'s token', headers: { 'x-inbox-token': t.guestA.inbox.token }, expect: 404 },
    { kind: 'another user\'s key', headers: { authorization: `Bearer ${KEY_A}` }, expect: 404 },
    { kind: 'another user\'s session', headers: { authorization: `Bearer ${t.sessionA}` }, expect: 404 },
    { kind: 'revoked session (of B)', headers: { authorization: `Bearer ${t.revokedSessionB}` }, expect: 401 },
    { kind: 'expired inbox (of B)', headers: { 'x-inbox-token': t.expiredTokenB }, expect: 401 },
  ];
}

interface Probe {
  method: string;
  path: string;
  body?: unknown;
}

function probesOf(inboxId: string, messageId: string, attachmentId: string): Probe[] {
  return [
    { method: 'GET', path: `/inboxes/${inboxId}` },
    { method: 'PATCH', path: `/inboxes/${inboxId}`, body: { label: 'pwned' } },
    { method: 'DELETE', path: `/inboxes/${inboxId}` },
    { method: 'GET', path: `/inboxes/${inboxId}/messages` },
    { method: 'GET', path: `/inboxes/${inboxId}/messages?limit=100` },
    { method: 'GET', path: `/inboxes/${inboxId}/stream` },
    { method: 'GET', path: `/inboxes/${inboxId}/stream?lastEventId=0` },
    { method: 'GET', path: `/messages/${messageId}` },
    { method: 'DELETE', path: `/messages/${messageId}` },
    { method: 'GET', path: `/messages/${messageId}/raw` },
    { method: 'GET', path: `/messages/${messageId}/attachments/${attachmentId}` },
  ];
}

/** Sends a probe; an event stream that opens is read briefly and cut. */
async function send(h: Harness, probe: Probe, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const abort = new AbortController();
  const init: RequestInit = { method: probe.method, headers: { ...headers }, signal: abort.signal };
  if (probe.body !== undefined) {
    init.body = JSON.stringify(probe.body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(`${h.server.apiUrl}${probe.path}`, init);
  if ((res.headers.get('content-type') ?? '').includes('event-stream')) {
    const reader = res.body!.getReader();
    const timer = setTimeout(() => abort.abort(), 500);
    let text = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('latin1');
      }
    } catch {}
    clearTimeout(timer);
    return { status: res.status, body: text };
  }
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()).toString('latin1') };
}

/** B's data that must not appear in an answer (ids the request itself named excepted). */
function leaksOf(t: Tenants, body: string, path: string): string[] {
  const secrets = [
    B_MARKERS.subject,
    B_MARKERS.text,
    B_MARKERS.attachment,
    Buffer.from(B_MARKERS.attachment).toString('base64'),
    B_MARKERS.filename,
    'b-label',
    'gb-label',
    t.b.inbox.address,
    t.guestB.inbox.address,
    t.b.inbox.id,
    t.guestB.inbox.id,
    t.b.messageId,
    t.guestB.messageId,
    t.b.attachmentId,
    t.guestB.attachmentId,
  ];
  return secrets.filter((s) => body.includes(s) && !path.includes(s));
}

test('every id-taking endpoint × every credential kind × another tenant\'s resources is refused, with 0 bytes of its data', async ({ harness }) => {
  test.setTimeout(120_000);
  const t = await setUpTenants(harness, (ms) => (clock += ms));
  const credentials = credentialsOf(t);
  const targets = [t.b, t.guestB];
  // Control: B's own credential reads B's data, and the scan sees it.
  for (const probe of probesOf(t.b.inbox.id, t.b.messageId, t.b.attachmentId).filter((p) => p.method === 'GET' && !p.path.includes('stream'))) {
    const own = await send(harness, probe, { authorization: `Bearer ${KEY_B}` });
    expect(own.status).toBe(200);
    expect(leaksOf(t, own.body, probe.path).length, `control ${probe.path}`).toBeGreaterThan(0);
  }
  let total = 0;
  let refused = 0;
  const leaks: string[] = [];
  const wrong: string[] = [];

  const check = async (label: string, probe: Probe, headers: Record<string, string>, expected: number) => {
    const { status, body } = await send(harness, probe, headers);
    total++;
    if (status === 401 || status === 404) refused++;
    if (status !== expected) wrong.push(`${label}: ${probe.method} ${probe.path} → ${status}, expected ${expected}`);
    const leaked = leaksOf(t, body, probe.path);
    if (leaked.length > 0) leaks.push(`${label}: ${probe.method} ${probe.path} leaked ${leaked.join(', ')}`);
    if (status === 401) expect(JSON.parse(body), label).toMatchObject({ error: { code: 'unauthorized' } });
    if (status === 404) expect(JSON.parse(body).error.code, label).toMatch(/_not_found$/);
  };

  for (const credential of credentials) {
    for (const target of targets) {
      for (const probe of probesOf(target.inbox.id, target.messageId, target.attachmentId)) {
        await check(credential.kind, probe, credential.headers, credential.expect);
      }
    }
  }
  // Id swapping with the attacker's own, valid credential: B's ids under A's own resources.
  const own: Array<[string, Record<string, string>, { messageId: string; attachmentId: string; inbox: { id: string } }]> = [
    ['A\'s key', { authorization: `Bearer ${KEY_A}` }, t.a],
    ['A\'s session', { authorization: `Bearer ${t.sessionA}` }, t.a],
    ['guest A\'s token', { 'x-inbox-token': t.guestA.inbox.token }, t.guestA],
  ];
  for (const [label, headers, mine] of own) {
    for (const target of targets) {
      await check(`${label}, B's attachment id under A's message`, { method: 'GET', path: `/messages/${mine.messageId}/attachments/${target.attachmentId}` }, headers, 404);
      await check(`${label}, A's attachment id under B's message`, { method: 'GET', path: `/messages/${target.messageId}/attachments/${mine.attachmentId}` }, headers, 404);
      await check(`${label}, B's message id with a ../ path`, { method: 'GET', path: `/inboxes/${mine.inbox.id}/../../messages/${target.messageId}` }, headers, 404);
      await check(`${label}, B's message id encoded`, { method: 'GET', path: `/messages/${encodeURIComponent(` ${target.messageId}`)}` }, headers, 404);
    }
  }
  // Lists the attacker may call: nothing of B in them.
  for (const credential of credentials.filter((c) => c.expect === 404)) {
    for (const path of ['/inboxes', '/inboxes?limit=100', '/me']) {
      const { status, body } = await send(harness, { method: 'GET', path }, credential.headers);
      expect(status).toBe(200);
      const leaked = leaksOf(t, body, path);
      if (leaked.length > 0) leaks.push(`${credential.kind}: GET ${path} leaked ${leaked.join(', ')}`);
    }
  }

  expect(wrong).toEqual([]);
  expect(leaks).toEqual([]);
  expect(refused).toBe(total);

  // Nothing the refused requests tried (PATCH, DELETE) happened.
  const b = await harness.call(`/inboxes/${t.b.inbox.id}`, { headers: { authorization: `Bearer ${KEY_B}` } });
  expect((b.json as { data: { label: string; messageCount: number } }).data).toMatchObject({ label: 'b-label', messageCount: 1 });
  const gb = await harness.call(`/messages/${t.guestB.messageId}`, { headers: { 'x-inbox-token': t.guestB.inbox.token } });
  expect((gb.json as { data: { subject: string } }).data.subject).toBe(B_MARKERS.subject);
  figure(
    'authorization',
    `${total} requests (${credentials.length} credential kinds × ${targets.length} inboxes of B × 11 id-taking calls, + ${total - credentials.length * targets.length * 11} id swaps): ${refused}/${total} refused (${((refused / total) * 100).toFixed(1)}%), 0 bytes of B's data returned, B's inboxes unchanged`,
  );
});

test('an inbox token is refused on what it does not grant: connect codes, sign-out, other inboxes, user listings', async ({ harness }) => {
  const t = await setUpTenants(harness, (ms) => (clock += ms));
  const token = { 'x-inbox-token': t.guestA.inbox.token };
  const codes = await harness.call('/extension/codes', {
    method: 'POST',
    headers: { ...token, 'content-type': 'application/json' },
    body: JSON.stringify({ codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', codeChallengeMethod: 'S256', redirectUri: 'https://ext.test/cb' }),
  });
  expect(codes.status).toBe(403);
  const signOut = await harness.call('/me/session', { method: 'DELETE', headers: token });
  expect([signOut.status, (signOut.json as { error: { code: string } }).error.code]).toEqual([400, 'not_a_session']);
  const list = await harness.call('/inboxes', { headers: token });
  expect((list.json as { data: { items: Array<{ id: string }> } }).data.items.map((i) => i.id)).toEqual([t.guestA.inbox.id]);
  const me = await harness.call('/me', { headers: token });
  expect((me.json as { data: unknown }).data).toMatchObject({ credential: 'inboxToken', user: null });
  for (const other of [t.a.inbox.id, t.b.inbox.id, t.guestB.inbox.id]) {
    expect((await harness.call(`/inboxes/${other}`, { headers: token })).status).toBe(404);
    expect((await harness.call(`/inboxes/${other}`, { method: 'DELETE', headers: token })).status).toBe(404);
  }
  // An inbox token next to a bearer credential does not widen it: the pair is refused, neither is preferred.
  const both = await harness.call(`/inboxes/${t.guestA.inbox.id}`, { headers: { ...token, authorization: `Bearer ${KEY_B}` } });
  expect([both.status, (both.json as { error: { code: string } }).error.code]).toEqual([400, 'validation_error']);
  figure('inbox token scope', 'connect codes 403, sign-out 400 not_a_session, 3/3 other inboxes 404 (read and delete), listing shows its one inbox');
});
