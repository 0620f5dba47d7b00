import { Validator } from '@seriousme/openapi-schema-validator';
import { PROVIDERS } from '../../../src/wire/providers.ts';
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

type Doc = {
  info: { license?: { name: string } };
  paths: Record<string, Record<string, { operationId?: string; parameters?: Array<{ name: string; in: string; schema: { pattern?: string } }>; responses: Record<string, { headers?: Record<string, unknown>; links?: Record<string, { operationId: string }>; content?: Record<string, unknown> }> }>>;
  components: { schemas: Record<string, Record<string, unknown>>; responses: Record<string, { headers: Record<string, unknown> }> };
};

test('every operation has a unique operationId, and info names the license', async ({ api }) => {
  const doc: Doc = (await api('GET', '/openapi.json')).body;
  const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
  expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)), JSON.stringify(ids)).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
});

test('every response documents the rate-limit headers and the request id; a 429 adds Retry-After, downloads Content-Disposition', async ({ api }) => {
  const doc: Doc = (await api('GET', '/openapi.json')).body;
  const responses = [
    ...Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => Object.entries(op.responses))),
    ...Object.entries(doc.components.responses),
  ];
  for (const [status, response] of responses) {
    expect(Object.keys(response.headers ?? {}), status).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']));
    if (status === '429') expect(Object.keys(response.headers ?? {})).toContain('Retry-After');
  }
  for (const path of ['/messages/{id}/attachments/{attachmentId}', '/messages/{id}/raw']) {
    expect(Object.keys(doc.paths[path]!.get!.responses['200']!.headers ?? {})).toContain('Content-Disposition');
  }
  expect(Object.keys(doc.paths['/messages/{id}/attachments/{attachmentId}']!.get!.responses['200']!.content ?? {})).toEqual(['*/*']);
  expect(Object.keys(doc.components.responses.MethodNotAllowed!.headers)).toContain('Allow');
});

test('the schemas say what the server checks: PATCH needs a field, Address is never null inside to/cc, resume ids are digits', async ({ api }) => {
  const doc: Doc = (await api('GET', '/openapi.json')).body;
  expect(doc.components.schemas.UpdateInboxRequest).toMatchObject({ minProperties: 1, anyOf: [{ required: ['label'] }, { required: ['forwardTo'] }] });
  expect(doc.components.schemas.Address!.type).toBe('object');
  const summary = doc.components.schemas.MessageSummary as { properties: Record<string, unknown> };
  expect(summary.properties.from).toEqual(expect.objectContaining({ anyOf: [{ $ref: '#/components/schemas/Address' }, { type: 'null' }] }));
  expect(summary.properties.to).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Address' } });
  const params = doc.paths['/inboxes/{id}/stream']!.get!.parameters!;
  for (const name of ['lastEventId', 'last-event-id']) expect(params.find((p) => p.name === name)?.schema.pattern).toBe('^[0-9]{0,15}$');
  expect(doc.components.schemas.StreamAccessRevoked).toBeDefined();
});

test('links lead from a created inbox to reading, listing, streaming and deleting it, and from a list to its items', async ({ api }) => {
  const doc: Doc = (await api('GET', '/openapi.json')).body;
  const ids = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId)));
  const links = (path: string, method: string) => doc.paths[path]![method]!.responses['200']!.links ?? {};
  expect(Object.values(links('/inboxes', 'post')).map((l) => l.operationId)).toEqual(expect.arrayContaining(['getInbox', 'listMessages', 'streamInbox', 'deleteInbox']));
  expect(Object.values(links('/inboxes', 'get')).map((l) => l.operationId)).toContain('getInbox');
  expect(Object.values(links('/inboxes/{id}/messages', 'get')).map((l) => l.operationId)).toContain('getMessage');
  expect(Object.values(links('/messages/{id}', 'get')).map((l) => l.operationId)).toContain('getAttachment');
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) for (const link of Object.values(op.responses['200']?.links ?? {})) expect(ids).toContain(link.operationId);
  }
});

test('forwardTo accepts what its published pattern accepts and refuses the rest', async ({ api }) => {
  const doc: Doc = (await api('GET', '/openapi.json')).body;
  const pattern = new RegExp((doc.components.schemas.UpdateInboxRequest as { properties: { forwardTo: { pattern: string } } }).properties.forwardTo.pattern, 'u');
  const inbox = (await api('POST', '/inboxes', { body: {} })).body.data;
  for (const address of ['a@localhost', 'first.last+tag@example.org', "o'brien@mail.example.co.uk", '"q"@example.org', 'user@[127.0.0.1]', 'a@b@c', 'a..b@example.org', '.a@example.org', 'a@-x.org', 'a@']) {
    const res = await api('PATCH', `/inboxes/${inbox.id}`, { inboxToken: inbox.token, body: { forwardTo: address } });
    // No relay is configured: an address that passes validation gets forwarding_unavailable.
    expect([address, res.body.error.code]).toEqual([address, pattern.test(address) ? 'forwarding_unavailable' : 'validation_error']);
  }
  expect(pattern.test('a@localhost')).toBe(true);
});

test('the document names every provider API of the table, where it is served from the origin and the variable that points its SDK there', async ({ api }) => {
  const doc = (await api('GET', '/openapi.json')).body;
  const listed = doc['x-inboxkit-provider-apis'].providers as Array<{ id: string; path: string; env: string | null }>;
  const expected = PROVIDERS.filter((row) => !row.mount.startsWith('/api/')).map((row) => ({ id: row.id, path: row.mount, env: row.env }));
  expect(listed.map(({ id, path, env }) => ({ id, path, env }))).toEqual(expected);
  for (const { id, path } of listed) {
    // Each answers in its provider's shape: never the API's not_found envelope for an unknown path.
    const res = await api('POST', `${path}/`, { root: true, rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect([id, res.body?.error?.code]).not.toEqual([id, 'not_found']);
  }
});

test('the template endpoint is an origin path item of the document: what its schema admits is registered, what it refuses is the Error it declares', async ({ api }) => {
  const doc = (await api('GET', '/openapi.json')).body;
  const item = doc['x-inboxkit-origin-paths']['/email/templates/{provider}/{id}'];
  expect(item.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  expect(item.parameters[0].schema.enum).toEqual(PROVIDERS.filter((row) => row.channel === 'email').map((row) => row.id));
  expect(doc.components.schemas.EmailTemplate.anyOf).toEqual([{ required: ['html'] }, { required: ['text'] }]);
  const put = await api('PUT', '/email/templates/sendgrid/d-welcome', { root: true, body: { subject: 'Hi {{name}}', html: '<p>{{code}}</p>' } });
  expect(put.status).toBe(200);
  expect(Object.keys(item.put.responses)).toContain(String(put.status));
  expect(put.body).toEqual({ data: { provider: 'sendgrid', id: 'd-welcome' } });
  const refused = await api('PUT', '/email/templates/sendgrid/d-empty', { root: true, body: { subject: 'no body' } });
  expect(refused.status).toBe(400);
  expect(Object.keys(item.put.responses)).toContain('400');
  expect(refused.body.error.message).toContain('html');
  expect((await api('PUT', '/email/templates/sparkpost/x', { root: true, body: { html: 'x' } })).status).toBe(404);
  expect((await api('DELETE', '/email/templates/sendgrid/d-welcome', { root: true })).status).toBe(204);
  expect((await api('DELETE', '/email/templates/sendgrid/d-welcome', { root: true })).status).toBe(404);
});
