import { Validator } from '@seriousme/openapi-schema-validator';
import { test, expect } from './fixtures.ts';

/** Every operation of the Disposable Inbox API v1, plus inboxkit's service endpoints. */
const OPERATIONS = [
  'GET /domains',
  'POST /inboxes',
  'GET /inboxes',
  'GET /inboxes/{id}',
  'PATCH /inboxes/{id}',
  'DELETE /inboxes/{id}',
  'GET /inboxes/{id}/messages',
  'GET /inboxes/{id}/stream',
  'GET /messages/{id}',
  'DELETE /messages/{id}',
  'GET /messages/{id}/attachments/{attachmentId}',
  'GET /me',
  'DELETE /me/session',
  'POST /extension/codes',
  'POST /extension/token',
  'GET /openapi.json',
  'GET /healthz',
];

test('GET /openapi.json is a valid OpenAPI 3.1 document, version 1.0.0', async ({ api }) => {
  const res = await api('GET', '/openapi.json');
  expect(res.status).toBe(200);
  const doc = res.body;
  expect(doc.openapi).toMatch(/^3\.1\./);
  expect(doc.info.version).toBe('1.0.0');
  const validator = new Validator();
  const result = await validator.validate(doc);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
});

test('the document lists every path and method of the specification', async ({ api }) => {
  const doc = (await api('GET', '/openapi.json')).body;
  const listed = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).map((m) => `${m.toUpperCase()} ${path}`),
  );
  for (const op of OPERATIONS) expect(listed, op).toContain(op);
  expect(doc.servers).toEqual([{ url: '/api/v1', description: expect.any(String) }]);
});

test('every documented operation is served: none answers 404 not_found or 405 for its own method', async ({ api }) => {
  const doc = (await api('GET', '/openapi.json')).body;
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(item)) {
      const concrete = path.replace(/\{[^}]+\}/g, 'x_1');
      const res = await api(method.toUpperCase(), concrete);
      expect([404, 405].includes(res.status) && ['not_found', 'method_not_allowed'].includes(res.body?.error?.code), `${method} ${path}`).toBe(false);
    }
  }
});

test('both security schemes are declared: bearer (API key or session) and the X-Inbox-Token header', async ({ api }) => {
  const doc = (await api('GET', '/openapi.json')).body;
  const schemes = doc.components.securitySchemes;
  expect(Object.values(schemes)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Inbox-Token' }),
    ]),
  );
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
    for (const [method, op] of Object.entries(item)) expect(op.security, `${method} ${path} declares its security`).toBeDefined();
  }
});

test('every operation declares its error responses with the Error schema, including 401, 429, 500 and 503', async ({ api }) => {
  const doc = (await api('GET', '/openapi.json')).body;
  expect(doc.components.schemas.Error).toBeDefined();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> }>>)) {
    for (const [method, op] of Object.entries(item)) {
      const statuses = Object.keys(op.responses);
      for (const status of ['401', '429', '500', '503']) expect(statuses, `${method} ${path}`).toContain(status);
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        expect(op.responses[status]?.content?.['application/json']?.schema?.$ref, `${method} ${path} ${status}`).toBe('#/components/schemas/Error');
      }
    }
  }
});
