/**
 * The HTTP app of the local service: middleware (request id, rate limiting,
 * credentials, body limit, 405), the JSON error envelope for every failure, and
 * every resource's routes under `/api/v1`.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { API_PREFIX, HealthSchema, StreamAccessRevokedSchema, StreamInboxGoneSchema, StreamReadySchema } from '../wire/schemas.ts';
import type { ErrorCode } from '../wire/schemas.ts';
import { isLoopbackHost } from '../wire/defaults.ts';
import { createAuthMiddleware } from './auth/middleware.ts';
import type { AppEnv, ServerContext } from './context/context.ts';
import { HttpError, STATUS_OF } from './http/errors.ts';
import { BEARER_SCHEME, INBOX_TOKEN_SCHEME, SHARED_RESPONSES } from './http/openapi.ts';
import { clientAddressOf } from './http/client-address.ts';
import { createHostCheck } from './auth/host-check.ts';
import { createRouter } from './http/router.ts';
import { checkMounts } from './http/mount.ts';
import type { AppMount } from './http/mount.ts';
import { createRateLimiter, rateLimitHeaders } from './http/ratelimit.ts';
import type { RateLimiter } from './http/ratelimit.ts';
import { anonymousRateLimit } from './auth/middleware.ts';
import { createDomainRoutes } from './routes/domains.handlers.ts';
import { createEventsRoutes } from './routes/events.handlers.ts';
import { createExtensionRoutes } from './routes/extension.handlers.ts';
import { createFaultRoutes } from './routes/faults.handlers.ts';
import { createInboxRoutes } from './routes/inboxes.handlers.ts';
import { createMeRoutes } from './routes/me.handlers.ts';
import { createMetaRoutes } from './routes/meta.handlers.ts';
import { createMessageRoutes } from './routes/messages.handlers.ts';
import { createStreamRoutes } from './routes/stream.handlers.ts';
import { createPhoneRoutes } from './routes/phones.handlers.ts';
import { createSmsRoutes } from './routes/sms.handlers.ts';
import type { ConnectionTimers } from './streams/connection.ts';
import { createViewerRoutes } from './routes/viewer.handlers.ts';
import { InvalidCursorError } from './storage/contract/cursor.ts';
import { StoreUnavailableError } from './storage/contract/errors.ts';

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

/** A request's rate-limit decision, or null when rate limiting is off. */
type RateLimitDecisionOrOff = Awaited<ReturnType<typeof anonymousRateLimit>>;

function errorResponse(c: Context<AppEnv>, code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  const requestId = c.get('requestId');
  return c.json({ error: { code, message, ...(requestId ? { requestId } : {}) } }, STATUS_OF[code], headers);
}

/** Sets headers on a finished response, copying it first if its headers are immutable. */
function withHeaders(c: Context<AppEnv>, headers: Record<string, string>): void {
  try {
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  } catch {
    const res = new Response(c.res.body, c.res);
    for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
    c.res = res;
  }
}

/** The data of the stream's events: in the document as schemas, though no operation returns them as JSON. */
const STREAM_EVENT_SCHEMAS = [StreamReadySchema, StreamInboxGoneSchema, StreamAccessRevokedSchema];

/**
 * Completes the generated document with what no route declares: the schemas of
 * the stream's event data (so clients can generate types for them), and
 * `components.responses` for the answers that belong to no operation (405,
 * unknown path, refused before routing), built like an operation's error response.
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
  doc.components = { ...doc.components, schemas, responses };
  return generated;
}

/** Options of {@link createApp}. */
export interface AppOptions {
  /**
   * Where the built web viewer is (`index.html`, `viewer.js`, `viewer.css`),
   * served at `/`; `false` serves no viewer.
   * @defaultValue dist/viewer of this package
   */
  viewerAssetsDir?: string | false;
  /**
   * The rate limiter. Give the one `startServer` also uses for requests the
   * HTTP server refuses before the app, so both count against one allowance.
   * @defaultValue a limiter of `ctx.config.rateLimitWindowSeconds`
   */
  rateLimiter?: RateLimiter;
  /**
   * Extra endpoints (e.g. the MCP server at `/mcp`), behind the same middleware as the API.
   * @defaultValue none
   */
  mounts?: readonly AppMount[];
  /**
   * The API root the mounts are told to call (`MountInfo.apiUrl`), once known.
   * @defaultValue `http://localhost` + the API prefix (in-process use)
   */
  selfApiUrl?: () => string;
  /**
   * The timers of the event streams' connections (ping, access deadline);
   * tests inject counting ones.
   * @defaultValue Node's, unref'd
   */
  streamTimers?: ConnectionTimers;
}

/**
 * Builds the service's HTTP app on a context. Serve it with `@hono/node-server`
 * (see `startServer`), or call `app.request()` in-process. The event stream's
 * ping interval and slow-client bound come from `ctx.config.stream`.
 *
 * @example
 * ```ts
 * const app = createApp(ctx);
 * const res = await app.request('/api/v1/domains');
 * ```
 */
export function createApp(ctx: ServerContext, options: AppOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const limiter = options.rateLimiter ?? createRateLimiter(ctx.store, ctx.config.rateLimitWindowSeconds);

  app.use('*', async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    await next();
    // Unset only when the credential middleware failed before deciding: count the request by address.
    const decided = c.get('rateLimit') as RateLimitDecisionOrOff | undefined;
    const decision = decided === undefined ? await anonymousRateLimit(ctx, limiter, clientAddressOf(c)).catch(() => null) : decided;
    // nosniff on every answer: a JSON body (an error echoing input included) is never read as HTML or script.
    withHeaders(c, { 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff', ...rateLimitHeaders(decision) });
  });
  // Before credentials are read: a rebinding page learns nothing, not even whether a token is valid.
  app.use('*', createHostCheck(isLoopbackHost(ctx.config.http.host), ctx.config.bounds.allowedHosts, (c) => clientAddressOf(c) !== 'local'));
  // Credentials and the rate limit come first, so every answer (a 405 included) is counted.
  app.use('*', createAuthMiddleware(ctx, limiter, clientAddressOf));
  app.use(
    '*',
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        errorResponse(c, 'method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}; use ${methods.join(', ')}.`, {
          Allow: methods.join(', '),
        }),
    }),
  );
  const limitBody = bodyLimit({
    maxSize: ctx.config.maxRequestBytes,
    onError: () => {
      throw new HttpError('payload_too_large', `The request body is over the limit of ${ctx.config.maxRequestBytes} bytes.`);
    },
  });
  // A GET or HEAD has no body under @hono/node-server; asking for it would build a whole
  // second Request (headers, abort controller) that an open event stream then keeps.
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));

  // An empty body sent as JSON reads as `{}`: clients often send the header on every request.
  app.use('*', async (c, next) => {
    if (c.req.header('content-length') === '0' && /\bjson\b/i.test(c.req.header('content-type') ?? '')) {
      // Hono caches bodies as promises (its type says string); its JSON reader parses the cached text.
      (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve('{}');
    }
    await next();
  });

  const api = createRouter<AppEnv>();
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
  api.route('/', createDomainRoutes(ctx));
  api.route('/', createInboxRoutes(ctx));
  api.route('/', createMeRoutes(ctx));
  api.route('/', createExtensionRoutes(ctx));
  api.route('/', createMessageRoutes(ctx));
  api.route('/', createStreamRoutes(ctx, { ...ctx.config.stream, timers: options.streamTimers }));
  api.route('/', createFaultRoutes(ctx));
  api.route('/', createEventsRoutes(ctx, { ...ctx.config.stream, timers: options.streamTimers }));
  api.route('/', createPhoneRoutes(ctx));

  let document: ReturnType<typeof api.getOpenAPI31Document> | undefined;
  const openApiDocument = () =>
    (document ??= completeDocument(
      api.getOpenAPI31Document({
        openapi: '3.1.0',
        info: INFO,
        servers: [{ url: API_PREFIX, description: 'This server' }],
      }),
    ));
  api.route('/', createMetaRoutes(openApiDocument));
  app.route(API_PREFIX, api);

  const mounts = options.mounts ?? [];
  checkMounts(mounts, API_PREFIX);
  for (const mount of mounts) {
    app.all(mount.path, (c) =>
      mount.handler(c.req.raw, { apiUrl: options.selfApiUrl?.() ?? `http://localhost${API_PREFIX}`, requestId: c.get('requestId') }),
    );
  }

  app.route('/sms', createSmsRoutes(ctx)); // SMS provider APIs (Twilio, AWS SNS, Vonage) as apps' SDKs call them
  // The web inbox viewer at `/`: static files, a client of the API above.
  if (options.viewerAssetsDir !== false) app.route('/', createViewerRoutes(options.viewerAssetsDir ? { assetsDir: options.viewerAssetsDir } : {}));

  // Also outside the API prefix, for process supervisors and load balancers.
  app.get('/healthz', (c) => c.json({ data: HealthSchema.parse({ status: 'ok' }) }));

  app.notFound((c) => errorResponse(c, 'not_found', `No route ${c.req.method} ${c.req.path}. The API lives under ${API_PREFIX}; see ${API_PREFIX}/openapi.json.`));
  app.onError((error, c) => {
    if (error instanceof HttpError) return errorResponse(c, error.code, error.message, error.headers);
    if (error instanceof InvalidCursorError) return errorResponse(c, 'validation_error', error.message);
    if (error instanceof HTTPException) {
      if (error.status === 400 && /json/i.test(error.message)) {
        return errorResponse(c, 'invalid_json', 'The request body is not valid JSON. Send a JSON object with Content-Type: application/json.');
      }
      if (error.status === 415) {
        return errorResponse(c, 'invalid_json', 'The request body must be JSON: send it with Content-Type: application/json.');
      }
      if (error.status === 413) return errorResponse(c, 'payload_too_large', `The request body is over the limit of ${ctx.config.maxRequestBytes} bytes.`);
      if (error.status < 500) return errorResponse(c, 'validation_error', error.message || 'The request is invalid.');
    }
    if (error instanceof StoreUnavailableError) {
      ctx.logger.warn({ err: error, requestId: c.get('requestId'), method: c.req.method, path: c.req.path }, 'request failed: database unreachable');
      return errorResponse(c, 'service_unavailable', 'The database of this service is unreachable right now; retry in a few seconds.', { 'Retry-After': '2' });
    }
    ctx.logger.error({ err: error, requestId: c.get('requestId'), method: c.req.method, path: c.req.path }, 'request failed');
    return errorResponse(c, 'internal_error', `The server failed to handle this request; it is logged with request id ${c.get('requestId')}.`);
  });
  return app;
}
