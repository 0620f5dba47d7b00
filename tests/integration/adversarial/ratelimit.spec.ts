/**
 * Rate limiting: headers on every response, Remaining counting down by one,
 * 429 with Retry-After past the allowance, and the client backing off.
 */
import { createClient } from '../../../src/client/index.ts';
import { expect, figure, test } from './helpers.ts';

test.use({ harnessOptions: { rateLimit: 5, rateLimitWindowSeconds: 2, apiKeys: ['tm_ratelimitratelimitratelimit'] } });

test('every response carries the rate-limit headers: successes, errors, downloads, the stream and the OpenAPI document', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const token = { 'x-inbox-token': inbox.token };
  const probes: Array<[string, RequestInit]> = [
    ['/domains', {}],
    ['/openapi.json', { headers: { authorization: 'Bearer tm_ratelimitratelimitratelimit' } }],
    [`/inboxes/${inbox.id}`, { headers: token }],
    ['/inboxes/nope', { headers: { 'x-inbox-token': inbox.token } }],
    ['/me', { headers: { authorization: 'Bearer tm_wrongwrongwrongwrongwrong' } }],
    ['/inboxes', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tm_ratelimitratelimitratelimit' }, body: '{"localPart": 5}' }],
    ['/inboxes', { method: 'PUT', headers: { 'content-type': 'application/json', authorization: 'Bearer tm_ratelimitratelimitratelimit' } }],
    ['/messages/nope/raw', { headers: token }],
    ['/no/such/route', { headers: token }],
  ];
  const statuses: number[] = [];
  for (const [path, init] of probes) {
    const res = await fetch(`${harness.server.apiUrl}${path}`, init);
    statuses.push(res.status);
    await res.arrayBuffer();
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers.get(name), `${path} ${name}`).toMatch(/^\d+$/);
  }
  const abort = new AbortController();
  const stream = await fetch(`${harness.server.apiUrl}/inboxes/${inbox.id}/stream`, { headers: token, signal: abort.signal });
  expect(stream.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  abort.abort();
  expect(new Set(statuses)).toEqual(new Set([200, 404, 401, 400, 405]));
  figure('rate-limit headers', `${probes.length + 1}/${probes.length + 1} responses (statuses ${[...new Set(statuses)].join(', ')} and the stream) carry X-RateLimit-Limit, -Remaining and -Reset`);
});

test.describe('on a stopped clock', () => {
  // The window never turns by itself, so the countdown is exact.
  test.use({ harnessOptions: { rateLimit: 5, rateLimitWindowSeconds: 2, now: () => 1_800_000_000_000 } });

  test('Remaining counts down by one; the request after the limit is 429 rate_limited with Retry-After the rest of the window', async ({ harness }) => {
    const inbox = await harness.createInbox();
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await harness.call(`/inboxes/${inbox.id}`, { headers: { 'x-inbox-token': inbox.token } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const refused = await harness.call(`/inboxes/${inbox.id}`, { headers: { 'x-inbox-token': inbox.token } });
    expect(refused.status).toBe(429);
    expect((refused.json as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.headers.get('x-ratelimit-reset')).toBe('2');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    figure('rate limit', `Remaining ${remaining.join(' → ')}, then 429 rate_limited with Retry-After ${refused.headers.get('retry-after')} s`);
  });
});

test('the client backs off on 429 (honouring Retry-After) and succeeds', async ({ harness }) => {
  const inbox = await harness.createInbox();
  for (let i = 0; i < 10; i++) {
    const res = await harness.call(`/inboxes/${inbox.id}`, { headers: { 'x-inbox-token': inbox.token } });
    if (res.status === 429) break;
  }
  const exhausted = await harness.call(`/inboxes/${inbox.id}`, { headers: { 'x-inbox-token': inbox.token } });
  expect(exhausted.status).toBe(429);
  // The window is 2 s long: what is left of it, in whole seconds.
  expect(['1', '2']).toContain(exhausted.headers.get('retry-after'));
  const client = createClient({ baseUrl: harness.server.url, inboxToken: inbox.token, retry: { maxRetries: 3, maxRetryAfterMs: 5000 } });
  try {
    const started = Date.now();
    const got = await client.inboxes.get(inbox.id);
    expect(got.id).toBe(inbox.id);
    figure('rate-limit client', `429 with Retry-After ${exhausted.headers.get('retry-after')} s → the client waited ${Date.now() - started} ms and succeeded`);
  } finally {
    await client.close();
  }
});
