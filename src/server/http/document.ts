/**
 * The OpenAPI document of the API: its `info`, its security schemes, and what
 * no route declares, added to what the routes generate.
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { API_PREFIX, StreamAccessRevokedSchema, StreamInboxGoneSchema, StreamReadySchema } from '../../wire/schemas.ts';
import { BEARER_SCHEME, INBOX_TOKEN_SCHEME, SHARED_RESPONSES } from './openapi.ts';
import { providerExtensions } from './document-providers.ts';

/** The OpenAPI document's `info`. */
const INFO = {
  title: 'Disposable Inbox API',
  version: '1.0.0',
  description: [
    'The Disposable Inbox API v1, as implemented by the inboxkit local service.',
    '',
    'Every response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` and `X-Request-Id`; a 429 adds `Retry-After`. With rate limiting off (`inboxkit serve --rate-limit off`) the three counters are `0`.',
    'Every failure is the JSON envelope `{ error: { code, message, requestId } }`. Besides the responses of each operation, any path answers `components.responses.MethodNotAllowed` (405) for a method it does not serve,',
    'an unknown path `components.responses.NotFound` (404), and a request refused before routing `components.responses.RequestRefused` (400, or 431 for headers over 16 KB). `HEAD` is served wherever `GET` is.',
    'Send one credential per request: `Authorization` and `X-Inbox-Token` together are a 400 `validation_error`.',
  ].join('\n'),
  license: { name: 'MIT', identifier: 'MIT' },
};

/** The data of the stream's events: in the document as schemas, though no operation returns them as JSON. */
const STREAM_EVENT_SCHEMAS = [StreamReadySchema, StreamInboxGoneSchema, StreamAccessRevokedSchema];

/** Registers the two credentials of the API (an API key or session token, an inbox token) on a router. */
export function registerSecuritySchemes<E extends Env>(api: OpenAPIHono<E>): void {
  api.openAPIRegistry.registerComponent('securitySchemes', BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (`tm_…`) or a session token from `POST /extension/token`.',
  });
  api.openAPIRegistry.registerComponent('securitySchemes', INBOX_TOKEN_SCHEME, {
    type: 'apiKey',
    in: 'header',
    name: 'X-Inbox-Token',
    description: 'The inbox token returned by `POST /inboxes`; grants exactly that inbox.',
  });
}

/**
 * Completes the generated document with what no route declares: the schemas of
 * the stream's event data (so clients can generate types for them),
 * `components.responses` for the answers that belong to no operation (405,
 * unknown path, refused before routing), built like an operation's error
 * response, and the provider APIs and the template endpoint served from the
 * origin (`document-providers.ts`).
 */
function completeDocument<D>(generated: D): D {
  const doc = generated as { paths: Record<string, Record<string, { responses: Record<string, { headers: object; content: object }> }>>; components?: Record<string, Record<string, unknown>> };
  const schemas = { ...doc.components?.schemas };
  for (const schema of STREAM_EVENT_SCHEMAS) {
    const json = JSON.stringify(z.toJSONSchema(schema, { target: 'draft-2020-12' }).$defs).replaceAll('"#/$defs/', '"#/components/schemas/');
    Object.assign(schemas, JSON.parse(json));
  }
  const template = doc.paths['/me']!.get!.responses['401']!;
  const responses: Record<string, unknown> = {};
  for (const [name, shared] of Object.entries(SHARED_RESPONSES)) {
    const allow = 'allow' in shared ? { Allow: { description: shared.allow, required: true, schema: { type: 'string' } } } : {};
    responses[name] = { description: shared.description, headers: { ...template.headers, ...allow }, content: template.content };
  }
  const providers = providerExtensions();
  doc.components = { ...doc.components, schemas: { ...schemas, ...providers.schemas }, responses };
  Object.assign(doc, providers.extensions);
  return generated;
}

/**
 * The API's OpenAPI 3.1 document, made from the router's routes on the first
 * call (once every route is registered) and kept.
 */
export function openApiDocumentOf<E extends Env>(api: OpenAPIHono<E>): () => ReturnType<OpenAPIHono<E>['getOpenAPI31Document']> {
  let document: ReturnType<OpenAPIHono<E>['getOpenAPI31Document']> | undefined;
  return () => (document ??= completeDocument(api.getOpenAPI31Document({ openapi: '3.1.0', info: INFO, servers: [{ url: API_PREFIX, description: 'This server' }] })));
}
