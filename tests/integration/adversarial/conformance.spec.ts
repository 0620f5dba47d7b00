/**
 * An external-style conformance pass over the OpenAPI document, with the checks
 * Schemathesis applies, for each credential kind (none, API key, inbox token,
 * session), on loopback and bounded in time:
 * - every answer's status is documented for its operation, and its headers and
 *   JSON body are valid against the document (`OpenApiChecker`), never a 5xx;
 * - data that violates the schema is rejected with a 4xx;
 * - auth is not ignored: an operation that needs a credential refuses none
 *   (401), and a sent credential that is invalid is a 401 everywhere;
 * - a resource used after its DELETE is a 404 (a guest's inbox token dies
 *   with its inbox: 401);
 * - the document's links are followed from real answers (the stateful phase).
 * Requests are generated with fast-check from the document itself.
 */
import fc from 'fast-check';
import nodemailer from 'nodemailer';
import { OpenApiChecker, exchange } from '../../support/openapi-check.ts';
import type { Exchange, OpenApiDoc, Operation } from '../../support/openapi-check.ts';
import { expect, figure, test } from './helpers.ts';
import type { Harness } from './helpers.ts';

const KEY = 'tm_conformanceconformanceconform';
const REVOCABLE_KEY = 'tm_revocablerevocablerevocable01';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'https://extension.example/callback';
/** The pass stops generating once this much time is spent (each phase checks it). */
const BUDGET_MS = 40_000;
/** Generated requests per operation, credential kind and phase. */
const RUNS = 15;

test.use({ harnessOptions: { apiKeys: [KEY, REVOCABLE_KEY], maxRequestBytes: 16 * 1024 } });

type Schema = Record<string, unknown>;
type Kind = 'none' | 'apiKey' | 'inboxToken' | 'session';

/** What one credential kind sends and the resources it can see. */
interface Actor {
  kind: Kind;
  headers: Record<string, string>;
  ids: Record<string, string>;
}

/** Operations that end the actor's own credential or resources: only the stateful phase calls them. */
const ENDING = new Set(['signOut', 'revokeApiKey', 'deleteInbox', 'deleteMessage']);

function resolve(doc: OpenApiDoc, schema: Schema): Schema {
  return typeof schema.$ref === 'string' ? resolve(doc, doc.components.schemas[schema.$ref.split('/').at(-1)!]!) : schema;
}

/** Values valid for a JSON Schema of the document (the keywords it uses). */
function valid(doc: OpenApiDoc, input: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, input);
  if (Array.isArray(schema.anyOf) && !schema.type) return fc.oneof(...(schema.anyOf as Schema[]).map((s) => valid(doc, s, depth + 1)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type)];
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'string': {
          const min = Number(schema.minLength ?? 0);
          const max = Math.min(Number(schema.maxLength ?? 40), 80);
          if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= Number(schema.maxLength ?? 1e9));
          return fc.string({ minLength: min, maxLength: Math.max(min, max) });
        }
        case 'integer':
          return fc.integer({ min: Number(schema.minimum ?? 0), max: Number(schema.maximum ?? 1000) });
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array':
          return depth > 3 ? fc.constant([]) : fc.array(valid(doc, (schema.items ?? {}) as Schema, depth + 1), { maxLength: 2 });
        case 'object': {
          const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
          const model = Object.fromEntries(props.map(([k, v]) => [k, valid(doc, v, depth + 1)]));
          return fc.record(model, { requiredKeys: (schema.required ?? []) as string[] });
        }
        default:
          return fc.jsonValue({ maxDepth: 1 });
      }
    }),
  );
}

/** Candidate values of the wrong kind for a property; the caller keeps those the schema refuses. */
const wrong = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.string({ minLength: 201, maxLength: 300 }),
  fc.constantFrom('', ' ', '"q"@example.org', 'user@[127.0.0.1]', 'plain', 'S257', 'a'.repeat(65)),
);

/** Query values an integer or pattern parameter must refuse. */
const badQuery = fc.constantFrom('0', '101', '0x10', '1e1', '+5', '10 ', '-1', '1.5', 'ten', '9'.repeat(20));

async function newSession(h: Harness): Promise<string> {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    h.call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const code = ((await post('/extension/codes', { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT }, { authorization: `Bearer ${KEY}` })).json as { data: { code: string } }).data.code;
  return ((await post('/extension/token', { code, codeVerifier: VERIFIER, redirectUri: REDIRECT })).json as { data: { accessToken: string } }).data.accessToken;
}

/** An inbox visible to `headers`, with one message that has an attachment. */
async function resources(h: Harness, headers: Record<string, string>, create: Record<string, string> = headers): Promise<{ inbox: { id: string; address: string; token: string }; ids: Record<string, string> }> {
  const inbox = await h.createInbox({}, create);
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: h.server.smtpPort, secure: false, ignoreTLS: true });
  await transport.sendMail({ from: 'app@example.test', to: inbox.address, subject: 'conformance', text: 'code 123456', attachments: [{ filename: 'a.txt', content: 'abc' }] });
  transport.close();
  const [summary] = await h.listAll(inbox);
  const message = (await h.call(`/messages/${summary!.id}`, { headers: { 'x-inbox-token': inbox.token } })).json as { data: { attachments: Array<{ id: string }> } };
  return { inbox, ids: { inboxId: inbox.id, messageId: summary!.id, attachmentId: message.data.attachments[0]!.id } };
}

/** The concrete path of an operation: each parameter from `values`, else the actor's resource, percent-encoded. */
function pathOf(operation: Operation, ids: Record<string, string>, values: Record<string, string> = {}): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const fallback = name === 'attachmentId' ? ids.attachmentId : operation.path.startsWith('/messages') ? ids.messageId : ids.inboxId;
    return encodeURIComponent(values[name] ?? fallback ?? 'x');
  });
}

test('a property-based pass over the OpenAPI document conforms for every credential kind: statuses, schemas, negative data, auth, use after delete, links', async ({ harness }) => {
  test.setTimeout(120_000);
  const started = Date.now();
  const overBudget = () => Date.now() - started > BUDGET_MS;
  const doc = (await harness.call('/openapi.json')).json as OpenApiDoc;
  const checker = new OpenApiChecker(doc);
  const counts = { requests: 0, negative: 0, auth: 0, afterDelete: 0, links: 0 };
  const failures: string[] = [];
  const send = async (method: string, path: string, headers: Record<string, string>, body?: string): Promise<Exchange> => {
    counts.requests++;
    const e = await exchange(harness.server.apiUrl, method, path, { headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body }) });
    for (const problem of checker.check(e)) failures.push(problem);
    if (e.status >= 500) failures.push(`${method} ${path} → ${e.status}`);
    return e;
  };
  const expectThat = (ok: boolean, what: string) => {
    if (!ok) failures.push(what);
  };

  // The actors: one per credential kind, each with resources it can see.
  const session = await newSession(harness);
  const keyed = await resources(harness, { authorization: `Bearer ${KEY}` });
  const sessioned = await resources(harness, { authorization: `Bearer ${session}` });
  const guest = await resources(harness, {}, {});
  const actors: Actor[] = [
    { kind: 'none', headers: {}, ids: guest.ids },
    { kind: 'apiKey', headers: { authorization: `Bearer ${KEY}` }, ids: keyed.ids },
    { kind: 'inboxToken', headers: { 'x-inbox-token': guest.inbox.token }, ids: guest.ids },
    { kind: 'session', headers: { authorization: `Bearer ${session}` }, ids: sessioned.ids },
  ];
  const routine = checker.operations.filter((o) => !ENDING.has(o.op.operationId));
  const bodySchemaOf = (o: Operation) => o.op.requestBody?.content['application/json']?.schema;
  const bodyPointer = (o: Operation) => `/paths/${o.path.replaceAll('/', '~1')}/${o.method.toLowerCase()}/requestBody/content/application~1json/schema`;
  const validBody = (o: Operation) => {
    const schema = bodySchemaOf(o);
    return schema ? valid(doc, schema).map((v) => JSON.stringify(v)) : fc.constant(undefined);
  };
  const queryArb = (o: Operation) =>
    fc.record(
      Object.fromEntries((o.op.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, valid(doc, p.schema).map(String)])),
      { requiredKeys: [] },
    ).map((q) => (Object.keys(q).length ? `?${new URLSearchParams(q as Record<string, string>)}` : ''));

  // 1. Generated requests (valid by the schema, ids known or not): every answer conforms.
  for (const actor of actors) {
    for (const operation of routine) {
      if (overBudget()) break;
      const idArb = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) });
      const params = fc.record(Object.fromEntries([...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => [m[1]!, idArb])), { requiredKeys: [] });
      await fc.assert(
        fc.asyncProperty(params, queryArb(operation), validBody(operation), async (values, query, body) => {
          const defined = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<string, string>;
          await send(operation.method, pathOf(operation, actor.ids, defined) + query, actor.headers, body);
        }),
        { numRuns: RUNS },
      );
    }
  }

  // 2. Negative data: a body or query value the schema refuses is a 4xx.
  for (const actor of actors.filter((a) => a.kind !== 'none')) {
    for (const operation of routine) {
      if (overBudget()) break;
      const schema = bodySchemaOf(operation);
      const queries = (operation.op.parameters ?? []).filter((p) => p.in === 'query' && (p.schema.type === 'integer' || p.schema.pattern));
      if (!schema && queries.length === 0) continue;
      const badBody = schema
        ? fc
            .tuple(valid(doc, schema), fc.constantFrom(...Object.keys((resolve(doc, schema).properties ?? {}) as object)), wrong)
            .map(([base, key, value]) => ({ ...(base as object), [key]: value }))
            .filter((candidate) => checker.validate(bodyPointer(operation), candidate) !== null)
            .map((v) => ({ body: JSON.stringify(v), query: '' }))
        : null;
      const badQueryArb = queries.length
        ? fc.tuple(fc.constantFrom(...queries), badQuery).filter(([p, v]) => (p.schema.pattern ? !new RegExp(String(p.schema.pattern)).test(v) : true))
            .map(([p, v]) => ({ body: undefined as string | undefined, query: `?${new URLSearchParams({ [p.name]: v })}` }))
        : null;
      const arb = badBody && badQueryArb ? fc.oneof(badBody, badQueryArb) : (badBody ?? badQueryArb)!;
      await fc.assert(
        fc.asyncProperty(arb, async ({ body, query }) => {
          counts.negative++;
          const e = await send(operation.method, pathOf(operation, actor.ids) + query, actor.headers, body ?? (schema ? '{}' : undefined));
          expectThat(e.status >= 400 && e.status < 500, `negative data accepted: ${operation.key} as ${actor.kind} with ${body ?? query} → ${e.status}`);
        }),
        { numRuns: RUNS },
      );
    }
  }

  // 3. Auth is not ignored: no credential where one is needed, an invalid one anywhere.
  const invalid: Array<Record<string, string>> = [{ authorization: 'Bearer tm_invalidinvalidinvalidinvalid' }, { authorization: 'Bearer tms_invalid' }, { authorization: 'Basic dXNlcjpwYXNz' }, { 'x-inbox-token': 'tmi_invalid' }];
  for (const operation of checker.operations) {
    const needsCredential = !(operation.op.security ?? []).some((requirement) => Object.keys(requirement).length === 0);
    const body = bodySchemaOf(operation) ? fc.sample(validBody(operation), { numRuns: 1, seed: 1 })[0] : undefined;
    if (needsCredential) {
      counts.auth++;
      const e = await send(operation.method, pathOf(operation, keyed.ids), {}, body);
      expectThat(e.status === 401, `auth ignored: ${operation.key} without a credential → ${e.status}`);
    }
    for (const headers of invalid) {
      counts.auth++;
      const e = await send(operation.method, pathOf(operation, keyed.ids), headers, body);
      expectThat(e.status === 401, `invalid credential accepted: ${operation.key} with ${Object.keys(headers)[0]} → ${e.status}`);
    }
  }

  // 4. Stateful: follow the links of real answers, then use what was deleted.
  const follow = async (from: Exchange, operationId: string, actor: Actor, extra: Record<string, string> = {}) => {
    const response = checker.operationOf(from.method, from.path)!.op.responses['200']!;
    const link = Object.values(response.links ?? {}).find((l) => l.operationId === operationId)!;
    const target = checker.operations.find((o) => o.op.operationId === operationId)!;
    const values: Record<string, string> = { ...extra };
    for (const [name, expression] of Object.entries(link.parameters)) {
      const pointer = expression.replace('$response.body#', '');
      const value = pointer.split('/').slice(1).reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], from.json);
      if (typeof value === 'string') values[name] = value;
    }
    counts.links++;
    const query = target.op.parameters?.some((p) => p.name === 'cursor' && p.in === 'query') && values.cursor ? `?cursor=${encodeURIComponent(values.cursor)}` : '';
    const body = target.op.operationId === 'updateInbox' ? JSON.stringify({ label: 'followed' }) : undefined;
    return send(target.method, pathOf(target, actor.ids, values) + query, actor.headers, body);
  };
  for (const kind of ['apiKey', 'session', 'inboxToken'] as const) {
    const actor = actors.find((a) => a.kind === kind)!;
    const created = await send('POST', '/inboxes', kind === 'inboxToken' ? {} : actor.headers, '{}');
    const inbox = (created.json as { data: { id: string; address: string; token: string } }).data;
    const own: Actor = { ...actor, headers: kind === 'inboxToken' ? { 'x-inbox-token': inbox.token } : actor.headers, ids: { inboxId: inbox.id } };
    for (const id of ['getInbox', 'listMessages', 'streamInbox', 'updateInbox']) expectThat((await follow(created, id, own)).status === 200, `link ${id} from createInbox failed for ${kind}`);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: harness.server.smtpPort, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'app@example.test', to: inbox.address, subject: 'linked', text: 'x', attachments: [{ filename: 'b.txt', content: 'b' }] });
    transport.close();
    const listed = await follow(created, 'listMessages', own);
    const read = await follow(listed, 'getMessage', own);
    expectThat((await follow(read, 'getAttachment', own)).status === 200, `link getAttachment failed for ${kind}`);
    expectThat((await follow(listed, 'getRawMessage', own)).status === 200, `link getRawMessage failed for ${kind}`);
    const messagePath = `/messages/${(read.json as { data: { id: string } }).data.id}`;
    expectThat((await follow(read, 'deleteMessage', own)).status === 200, `deleteMessage failed for ${kind}`);
    for (const [method, path] of [['GET', messagePath], ['DELETE', messagePath], ['GET', `${messagePath}/raw`]] as const) {
      counts.afterDelete++;
      const e = await send(method, path, own.headers);
      expectThat(e.status === 404, `use after delete: ${method} ${path} as ${kind} → ${e.status}`);
    }
    expectThat((await follow(created, 'deleteInbox', own)).status === 200, `deleteInbox failed for ${kind}`);
    // A guest's inbox token is the inbox's own credential: it ends with it (401); users get 404.
    const gone = kind === 'inboxToken' ? 401 : 404;
    for (const [method, path] of [['GET', `/inboxes/${inbox.id}`], ['GET', `/inboxes/${inbox.id}/messages`], ['GET', `/inboxes/${inbox.id}/stream`], ['PATCH', `/inboxes/${inbox.id}`], ['DELETE', `/inboxes/${inbox.id}`]] as const) {
      counts.afterDelete++;
      const e = await send(method, path, own.headers, method === 'PATCH' ? '{"label":"x"}' : undefined);
      expectThat(e.status === gone, `use after delete: ${method} ${path} as ${kind} → ${e.status}, expected ${gone}`);
    }
  }
  // Credentials used after they are revoked.
  expectThat((await send('DELETE', '/me/session', { authorization: `Bearer ${session}` })).status === 200, 'sign-out failed');
  expectThat((await send('DELETE', '/me/api-key', { authorization: `Bearer ${REVOCABLE_KEY}` })).status === 200, 'key revocation failed');
  for (const credential of [session, REVOCABLE_KEY]) {
    counts.afterDelete++;
    const e = await send('GET', '/me', { authorization: `Bearer ${credential}` });
    expectThat(e.status === 401, `use after revocation: GET /me → ${e.status}`);
  }

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  expect(failures.slice(0, 20)).toEqual([]);
  expect(overBudget(), 'the pass stayed within its time budget').toBe(false);
  figure(
    'conformance',
    `${counts.requests} requests over ${checker.operations.length} operations × 4 credential kinds (none, API key, inbox token, session) in ${seconds} s: ` +
      `${counts.negative} negative-data, ${counts.auth} auth, ${counts.afterDelete} use-after-delete/revoke and ${counts.links} link-following requests; 0 undocumented statuses, 0 schema mismatches, 0 × 5xx`,
  );
});
