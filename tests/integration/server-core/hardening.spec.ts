/**
 * The smaller findings of issue 31: JSON is never sniffed, a wrong credential
 * on DELETE /me/api-key is named, authentication is decided before
 * validation, and the fault body's schema refuses exactly what the server refuses.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { test, expect, expectError, KEY_A } from './fixtures.ts';

const OPERATOR = `tmo_${'o'.repeat(32)}`;
test.use({ serverOptions: { operatorToken: OPERATOR } });

test('every JSON answer carries X-Content-Type-Options: nosniff, errors included', async ({ api }) => {
  for (const answer of [await api('GET', '/domains'), await api('GET', '/no/such/path'), await api('GET', '/inboxes'), await api('GET', '/me', { bearer: 'tm_wrongwrongwrongwrong' })]) {
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  }
});

test('DELETE /me/api-key names the credential it was sent instead of an API key', async ({ api }) => {
  const operator = await api('DELETE', '/me/api-key', { bearer: OPERATOR });
  expectError(operator, 400, 'validation_error');
  expect(operator.body.error.message).toContain('the operator token');
  const inbox = (await api('POST', '/inboxes')).body.data;
  const guest = await api('DELETE', '/me/api-key', { inboxToken: inbox.token });
  expect(guest.body.error.message).toContain('an inbox token');
  expect(guest.body.error.message).not.toContain('operator');
});

test('on an endpoint that needs a credential, an anonymous request is a 401 whatever its body, query or path', async ({ api }) => {
  expectError(await api('PUT', '/inboxes/ibx_x/delivery-fault', { body: { code: 'x', extra: true } }), 401, 'unauthorized');
  expectError(await api('POST', '/extension/codes', { body: { codeChallenge: 'short' } }), 401, 'unauthorized');
  expectError(await api('GET', '/inboxes?limit=0x10'), 401, 'unauthorized');
  // With a credential, the same request is validated.
  expectError(await api('GET', '/inboxes?limit=0x10', { bearer: KEY_A }), 400, 'validation_error');
});

test('the fault body\'s published schema accepts exactly the bodies the server accepts', async ({ api }) => {
  const doc = (await api('GET', '/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const valid = ajv.compile({ ...doc.components.schemas.DeliveryFaultRequest, $defs: doc.components.schemas });
  const inbox = (await api('POST', '/inboxes')).body.data;
  const bodies = [{}, { count: 1 }, { delayMs: 0 }, { delayMs: 0, count: 2 }, { code: 421 }, { enhancedStatus: '4.1.1' }, { delayMs: 1 }, { code: 451 }, { code: 550, delayMs: 0, count: 1 }, { code: 451, enhancedStatus: '4.7.1' }];
  const verdicts = [];
  for (const body of bodies) {
    const res = await api('PUT', `/inboxes/${inbox.id}/delivery-fault`, { inboxToken: inbox.token, body });
    verdicts.push({ body, schema: valid(body), server: res.status === 200 });
  }
  expect(verdicts.filter((v) => v.schema !== v.server)).toEqual([]);
  expect(verdicts.filter((v) => v.server).length).toBe(4);
});

test('the fault reply\'s schema lets the fault be null, as the server answers when there is none', async ({ api }) => {
  const doc = (await api('GET', '/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const schemas = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'));
  const valid = ajv.compile({ ...schemas.DeliveryFaultState, $defs: schemas });
  const inbox = (await api('POST', '/inboxes')).body.data;
  const answer = await api('GET', `/inboxes/${inbox.id}/delivery-fault`, { inboxToken: inbox.token });
  expect(answer.body.data).toEqual({ fault: null });
  expect(valid(answer.body.data)).toBe(true);
});
