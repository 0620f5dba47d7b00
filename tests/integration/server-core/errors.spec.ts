import { pino } from 'pino';
import { startServer } from '../../../src/server/index.ts';
import type { Store } from '../../../src/server/index.ts';
import { openProjectStore } from '../../support/backends.ts';
import { test, expect, expectError, apiOf } from './fixtures.ts';

test('an unknown route is a JSON 404 not_found, under the API prefix and outside it', async ({ api }) => {
  for (const path of ['/api/v1/nothing-here', '/api/v2/inboxes', '/favicon.ico']) {
    const res = await api('GET', path, { root: true });
    expectError(res, 404, 'not_found');
  }
  const res = await api('GET', '/api/v1/nothing-here');
  expect(res.headers.get('content-type')).toContain('application/json');
});

test('a wrong method is a JSON 405 naming the allowed ones', async ({ api }) => {
  const res = await api('PUT', '/api/v1/inboxes');
  expectError(res, 405, 'method_not_allowed');
  expect(res.headers.get('allow')).toContain('POST');
  expect(res.headers.get('allow')).toContain('GET');
  const byId = await api('POST', '/api/v1/inboxes/ibx_1');
  expectError(byId, 405, 'method_not_allowed');
  expect(byId.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
});

test('a body that is not JSON is invalid_json', async ({ api }) => {
  expectError(await api('POST', '/inboxes', { rawBody: '{"localPart": "a",' }), 400, 'invalid_json');
  expectError(await api('POST', '/extension/token', { rawBody: 'code=x' }), 400, 'invalid_json');
  const form = await api('POST', '/extension/token', { rawBody: 'code=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expectError(form, 400, 'invalid_json');
  expect(form.body.error.message).toContain('Content-Type: application/json');
});

test('an empty body sent as JSON reads as an empty object', async ({ api }) => {
  expect((await api('POST', '/inboxes', { rawBody: '' })).status).toBe(200);
  const token = await api('POST', '/extension/token', { rawBody: '' });
  expectError(token, 400, 'validation_error');
  expect(token.body.error.message).toContain('code');
});

test.describe('with a 256-byte request limit', () => {
  test.use({ serverOptions: { maxRequestBytes: 256 } });

  test('a body over the limit is payload_too_large, one under it is handled', async ({ api }) => {
    expectError(await api('POST', '/inboxes', { body: { label: 'x'.repeat(300) } }), 413, 'payload_too_large');
    expect((await api('POST', '/inboxes', { body: { label: 'x'.repeat(100) } })).status).toBe(200);
  });
});

test('errors carry the rate-limit headers and a request id like successes', async ({ api }) => {
  for (const res of [await api('GET', '/api/v1/nope'), await api('GET', '/me', { bearer: 'tm_badbadbadbadbadbadbadbad' }), await api('GET', '/domains')]) {
    expect(res.headers.get('x-ratelimit-limit')).toBe('6000');
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('x-ratelimit-reset')).toMatch(/^[1-9]\d*$/);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  }
});

test('a fault of the server is a 500 internal_error without internals, logged with its request id', async () => {
  const lines: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(line) });
  const { store: real, bus, close } = await openProjectStore();
  let broken = false;
  const store = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'listDomains' && broken) return async () => { throw new Error('disk on fire at /var/secret/path'); };
      return Reflect.get(target, prop, receiver);
    },
  }) as Store;
  const server = await startServer({ store, bus, logger });
  try {
    broken = true;
    const res = await apiOf(server)('GET', '/domains');
    expectError(res, 500, 'internal_error');
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('disk on fire');
    expect(text).not.toContain('/var/secret');
    expect(text).not.toContain('at ');
    const requestId = res.body.error.requestId;
    expect(res.body.error.message).toContain(requestId);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.requestId === requestId);
    expect(logged?.err?.message).toBe('disk on fire at /var/secret/path');
  } finally {
    await server.close();
    await close();
  }
});

test('the health check answers under the API prefix and at the root', async ({ api }) => {
  expect((await api('GET', '/healthz', { root: true })).body).toEqual({ data: { status: 'ok' } });
  expect((await api('GET', '/healthz')).body).toEqual({ data: { status: 'ok' } });
});
