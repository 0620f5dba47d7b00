/**
 * The document and the server cannot drift apart: a recorded pass of real
 * traffic against a real server (every operation, with its successes and its
 * refusals) is compared, exchange by exchange, with what the OpenAPI document
 * says: statuses, media types, headers and JSON bodies.
 */
import nodemailer from 'nodemailer';
import { startServer } from '../../../src/server/index.ts';
import { OpenApiChecker, exchange } from '../../support/openapi-check.ts';
import type { Exchange, OpenApiDoc } from '../../support/openapi-check.ts';
import { test, expect, KEY_A, KEY_B } from './fixtures.ts';
import { printFigure } from '../../support/figures.ts';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'https://extension.example/callback';

/** The spam check answers 200 only with a scanner (the spamd `.ci/run` starts); without one, 400 `spam_check_unavailable`. */
const SPAMD = process.env.INBOXKIT_TEST_SPAMD_URL ?? null;

test.use({ serverOptions: { maxRequestBytes: 4096, spamCheck: SPAMD } });

test('every status, media type and header the server sends for each operation is the one the document declares', async ({ server }) => {
  test.setTimeout(60_000);
  const log: Exchange[] = [];
  const call = async (method: string, path: string, options: { bearer?: string; token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}, apiUrl = server.apiUrl) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    if (options.token) headers['x-inbox-token'] = options.token;
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const recorded = await exchange(apiUrl, method, path, { headers, ...(body === undefined ? {} : { body }) });
    log.push(recorded);
    return recorded;
  };
  const data = (e: Exchange) => (e.json as { data: Record<string, unknown> }).data;

  // Service, account, domains.
  const doc = (await call('GET', '/openapi.json')).json as OpenApiDoc;
  await call('GET', '/healthz');
  await call('GET', '/service');
  await call('GET', '/domains');
  await call('GET', '/me');
  await call('GET', '/me', { bearer: 'tm_notakeynotakeynotakeynotakey' });
  // Sessions (PKCE) and connect codes.
  const codeOf = async () => data(await call('POST', '/extension/codes', { bearer: KEY_A, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } })).code as string;
  const code = await codeOf();
  const session = data(await call('POST', '/extension/token', { body: { code, codeVerifier: VERIFIER, redirectUri: REDIRECT } })).accessToken as string;
  await call('POST', '/extension/token', { body: { code: 'tmc_unknown', codeVerifier: VERIFIER, redirectUri: REDIRECT } });
  await call('POST', '/extension/codes', { bearer: KEY_A, body: { codeChallenge: 'short' } });
  await call('POST', '/extension/codes', { body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } });
  await call('GET', '/me', { bearer: session });
  // Inboxes.
  const guest = data(await call('POST', '/inboxes', { body: {} }));
  const owned = data(await call('POST', '/inboxes', { bearer: KEY_A, body: { localPart: 'drift', label: 'drift' } }));
  await call('POST', '/inboxes', { bearer: KEY_A, body: { localPart: 'drift' } });
  await call('POST', '/inboxes', { body: { domainId: 'dom_nope' } });
  await call('POST', '/inboxes', { raw: '{"localPart":' });
  await call('POST', '/inboxes', { body: { label: 'x'.repeat(5000) } });
  await call('POST', '/extension/codes', { token: guest.token as string, body: { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT } });
  await call('GET', '/inboxes', { bearer: KEY_A });
  await call('GET', '/inboxes?limit=1', { token: guest.token as string });
  await call('GET', '/inboxes?limit=0x10', { bearer: KEY_A });
  await call('GET', '/inboxes');
  await call('GET', '/inboxes', { bearer: KEY_A, token: guest.token as string });
  await call('GET', `/inboxes/${owned.id}`, { bearer: session });
  await call('GET', `/inboxes/${owned.id}`, { token: guest.token as string });
  await call('PATCH', `/inboxes/${owned.id}`, { bearer: KEY_A, body: { label: 'renamed' } });
  await call('PATCH', `/inboxes/${owned.id}`, { bearer: KEY_A, body: {} });
  await call('PATCH', `/inboxes/${owned.id}`, { bearer: KEY_A, body: { forwardTo: 'a@localhost' } });
  // Messages, with an attachment, over real SMTP.
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
  await transport.sendMail({ from: 'app@example.test', to: owned.address as string, subject: 'drift', text: 'code 123456', attachments: [{ filename: 'é.png', content: Buffer.from('89504e47', 'hex'), contentType: 'image/png' }] });
  transport.close();
  const list = data(await call('GET', `/inboxes/${owned.id}/messages?limit=5`, { bearer: KEY_A }));
  await call('GET', `/inboxes/${owned.id}/messages?cursor=nope`, { bearer: KEY_A });
  await call('GET', `/inboxes/${guest.id}/messages`, { bearer: KEY_A });
  const messageId = (list.items as Array<{ id: string }>)[0]!.id;
  const message = data(await call('GET', `/messages/${messageId}`, { bearer: KEY_A }));
  await call('GET', '/messages/msg_nope', { bearer: KEY_A });
  const attachmentId = (message.attachments as Array<{ id: string }>)[0]!.id;
  await call('GET', `/messages/${messageId}/attachments/${attachmentId}`, { bearer: KEY_A });
  await call('GET', `/messages/${messageId}/attachments/att_nope`, { bearer: KEY_A });
  await call('GET', `/messages/${messageId}/raw`, { bearer: KEY_A });
  await call('PATCH', `/messages/${messageId}`, { bearer: KEY_A, body: { seen: true } });
  await call('PATCH', `/messages/${messageId}`, { bearer: KEY_A, body: { seen: 'yes' } });
  await call('PATCH', `/messages/${messageId}`, { bearer: KEY_A, body: { seen: false } });
  await call('GET', '/messages/msg_nope/raw', { token: guest.token as string });
  // The spam check (an extension): scored (with a scanner) or 400, and refused.
  await call('POST', `/messages/${messageId}/spam-check`, { bearer: KEY_A });
  await call('POST', '/messages/msg_nope/spam-check', { bearer: KEY_A });
  // The authentication check (an extension): checked against a test DNS, refused (a malformed map, no message).
  await call('POST', `/messages/${messageId}/authentication`, { bearer: KEY_A, body: { dns: { 'example.test': 'v=spf1 ip4:127.0.0.1 -all', '_dmarc.example.test': 'v=DMARC1; p=none' } } });
  await call('POST', `/messages/${messageId}/authentication`, { bearer: KEY_A, body: { dns: { 'mail._domainkey.example.test': 'v=DKIM1' } } });
  await call('POST', '/messages/msg_nope/authentication', { bearer: KEY_A, body: { dns: {} } });
  // The stream: open (its first bytes), refused.
  await call('GET', `/inboxes/${owned.id}/stream`, { bearer: KEY_A, headers: { 'last-event-id': '0' } });
  await call('GET', `/inboxes/${owned.id}/stream?lastEventId=1e3`, { bearer: KEY_A });
  await call('GET', `/inboxes/${guest.id}/stream`, { bearer: KEY_A });
  // The caller-wide stream (an extension): open, refused.
  await call('GET', '/me/events', { bearer: KEY_A });
  await call('GET', '/me/events');
  // Delivery faults (an extension): set, read, refuse, clear.
  const phone = data(await call('POST', '/phones', { bearer: KEY_A, body: { country: 'FR' } }));
  await call('POST', '/phones', { body: { country: 'XX' } });
  await call('POST', '/sms', { bearer: KEY_A, body: { to: phone.phoneNumber as string, text: 'code 123456' } });
  await call('POST', '/sms', { body: { to: '+12025551234', text: 'x' } });
  await call('GET', `/inboxes/${phone.id}`, { bearer: KEY_A });
  await call('PUT', `/inboxes/${owned.id}/delivery-fault`, { bearer: KEY_A, body: { code: 451, count: 1 } });
  await call('PUT', `/inboxes/${owned.id}/delivery-fault`, { bearer: KEY_A, body: { code: 250 } });
  await call('GET', `/inboxes/${owned.id}/delivery-fault`, { bearer: KEY_A });
  await call('GET', `/inboxes/${guest.id}/delivery-fault`, { bearer: KEY_A });
  await call('DELETE', `/inboxes/${owned.id}/delivery-fault`, { bearer: KEY_A });
  // No fault in force: `{ fault: null }` must match the document's schema.
  await call('GET', `/inboxes/${owned.id}/delivery-fault`, { bearer: KEY_A });
  // Refused by the schema's own rules (a code or a delay; never 421).
  await call('PUT', `/inboxes/${owned.id}/delivery-fault`, { bearer: KEY_A, body: { count: 1 } });
  await call('PUT', `/inboxes/${owned.id}/delivery-fault`, { bearer: KEY_A, body: { code: 421 } });
  // Authentication before validation: an anonymous, invalid request is a 401 on a Required endpoint.
  await call('PUT', `/inboxes/${owned.id}/delivery-fault`, { body: { code: 'x' } });
  await call('POST', '/extension/codes', { body: { codeChallenge: 'short' } });
  // The one-credential rule: every operation answers 400 to an API key and an inbox token together.
  for (const [method, path] of [
    ['GET', '/domains'], ['GET', '/me'], ['POST', '/inboxes'], ['GET', `/inboxes/${owned.id}`], ['PATCH', `/inboxes/${owned.id}`],
    ['GET', `/inboxes/${owned.id}/messages`], ['GET', `/messages/${messageId}`], ['GET', `/messages/${messageId}/raw`],
    ['GET', `/messages/${messageId}/attachments/${attachmentId}`], ['GET', `/inboxes/${owned.id}/stream`], ['GET', '/me/events'],
    ['PUT', `/inboxes/${owned.id}/delivery-fault`], ['GET', `/inboxes/${owned.id}/delivery-fault`], ['DELETE', `/inboxes/${owned.id}/delivery-fault`],
    ['POST', '/extension/codes'], ['POST', '/extension/token'], ['DELETE', '/me/session'], ['DELETE', '/me/api-key'],
    ['DELETE', `/messages/${messageId}`], ['DELETE', `/inboxes/${owned.id}`], ['GET', '/openapi.json'],
  ] as const) {
    await call(method, path, { bearer: KEY_A, token: guest.token as string, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
  }
  // Deletions, and their use after.
  await call('DELETE', `/messages/${messageId}`, { bearer: KEY_A });
  await call('DELETE', `/messages/${messageId}`, { bearer: KEY_A });
  await call('DELETE', `/inboxes/${owned.id}`, { bearer: KEY_A });
  await call('DELETE', `/inboxes/${owned.id}`, { bearer: KEY_A });
  await call('DELETE', '/me/session', { bearer: KEY_A });
  await call('DELETE', '/me/api-key', { bearer: session });
  await call('DELETE', '/me/session', { bearer: session });
  await call('DELETE', '/me/api-key', { bearer: KEY_B });
  // Answers that belong to no operation.
  await call('PUT', '/domains', { body: {} });
  await call('GET', '/no/such/path');
  // 429 and Retry-After, from a server with a tiny allowance.
  const tight = await startServer({ rateLimit: 2 });
  try {
    for (let i = 0; i < 3; i++) await call('GET', '/domains', {}, tight.apiUrl);
  } finally {
    await tight.close();
  }

  const checker = new OpenApiChecker(doc);
  const problems = log.flatMap((e) => checker.check(e));
  expect(problems).toEqual([]);
  // Every operation was exercised, and answered 200 at least once.
  const seen = new Map<string, Set<number>>();
  for (const e of log) {
    const key = checker.operationOf(e.method, e.path)?.key ?? `(no operation) ${e.status}`;
    seen.set(key, (seen.get(key) ?? new Set()).add(e.status));
  }
  for (const { key } of checker.operations) {
    if (key === 'POST /messages/{id}/spam-check' && SPAMD === null) continue;
    expect([key, seen.get(key)?.has(200)]).toEqual([key, true]);
  }
  const pairs = [...seen.values()].reduce((n, s) => n + s.size, 0);
  const statuses = [...new Set(log.map((e) => e.status))].sort();
  printFigure(`drift: ${log.length} recorded exchanges over ${checker.operations.length} operations, ${pairs} (operation, status) pairs, statuses ${statuses.join(', ')}: 0 differences from the document`);
});
