/**
 * The HTTP app of the local service, composed of named parts: the middleware
 * (request id, nosniff, rate-limit headers, host check, credentials, 405, body
 * limit, empty JSON body; each a factory in `http/` or `auth/`), the JSON error
 * envelope for every failure (`http/error-mapping.ts`), and every resource's
 * routes under `/api/v1` (one factory per resource in `routes/`).
 *
 * @packageDocumentation
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { API_PREFIX, HealthSchema } from '../wire/schemas.ts';
import { isLoopbackHost } from '../wire/defaults.ts';
import { createAuthMiddleware } from './auth/middleware.ts';
import { createHostCheck } from './auth/host-check.ts';
import { observeRequests } from './http/observe.ts';
import type { RequestObserver } from './http/observe.ts';
import { reportRateLimit } from './auth/rate-limit-headers.ts';
import type { AppEnv, ServerContext } from './context/context.ts';
import { emptyJsonBody, requestBodyLimit } from './http/body.ts';
import { clientAddressOf, trustedProxyMiddleware } from './http/client-address.ts';
import { openApiDocumentOf, registerSecuritySchemes } from './http/document.ts';
import { mapErrors, methodNotAllowedAnswer, notFoundAnswer } from './http/error-mapping.ts';
import { serveMounts } from './http/mount.ts';
import { callerOf } from './auth/caller.ts';
import { createOnBehalf, onBehalfMiddleware } from './http/on-behalf.ts';
import type { OnBehalf } from './http/on-behalf.ts';
import type { AppMount } from './http/mount.ts';
import { createRateLimiter } from './http/ratelimit.ts';
import type { RateLimiter } from './http/ratelimit.ts';
import { requestId } from './http/request-id.ts';
import { noSniff } from './http/response-headers.ts';
import { createRouter } from './http/router.ts';
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
import { createProviderRoutes } from './routes/sms.handlers.ts';
import type { ConnectionTimers } from './streams/connection.ts';
import { createViewerRoutes } from './routes/viewer.handlers.ts';

/** Options of {@link createApp}. */
export interface AppOptions {
  /**
   * Where the built web viewer is (`index.html`, `viewer.js`, `viewer.css`),
   * served at `/`; `false` serves no viewer.
   * @defaultValue dist/viewer of this package
   */
  viewerAssetsDir?: string | false;
  /** Told of each request the app answered (route pattern, method, status, seconds): the request metrics. */
  observe?: RequestObserver;
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
 * The middleware every request passes, in order. The headers every answer
 * carries come first, so an answer refused by a later part (a 405 included)
 * carries them too and is counted.
 */
function useMiddleware(app: OpenAPIHono<AppEnv>, ctx: ServerContext, limiter: RateLimiter, onBehalf: OnBehalf): void {
  app.use('*', requestId());
  app.use('*', noSniff());
  // Only a service told to trust a balancer (`--trust-proxy`) reads X-Forwarded-For; the others skip the step.
  if (ctx.config.operations.trustProxy.length > 0) app.use('*', trustedProxyMiddleware(ctx.config.operations.trustProxy));
  app.use('*', reportRateLimit({ deps: ctx, limiter, clientAddressOf }));
  app.use('*', onBehalfMiddleware(onBehalf));
  // Before credentials are read: a rebinding page learns nothing, not even whether a token is valid.
  app.use('*', createHostCheck(isLoopbackHost(ctx.config.http.host), ctx.config.bounds.allowedHosts, (c) => clientAddressOf(c) !== 'local'));
  app.use('*', createAuthMiddleware(ctx, limiter, clientAddressOf));
  app.use('*', methodNotAllowed({ app, onMethodNotAllowed: methodNotAllowedAnswer }));
  app.use('*', requestBodyLimit({ maxBytes: ctx.config.maxRequestBytes }));
  app.use('*', emptyJsonBody());
}

/**
 * The API under `/api/v1`: every resource's routes (a new resource adds its
 * factory here), then `/openapi.json`, whose document they generate.
 */
function createApi(ctx: ServerContext, options: AppOptions): OpenAPIHono<AppEnv> {
  const api = createRouter<AppEnv>();
  registerSecuritySchemes(api);
  const streams = { ...ctx.config.stream, timers: options.streamTimers };
  const resources = [
    createDomainRoutes(ctx),
    createInboxRoutes(ctx),
    createMeRoutes(ctx),
    createExtensionRoutes(ctx),
    createMessageRoutes(ctx),
    createStreamRoutes(ctx, streams),
    createFaultRoutes(ctx),
    createEventsRoutes(ctx, streams),
    createPhoneRoutes(ctx),
  ];
  for (const routes of resources) api.route('/', routes);
  api.route('/', createMetaRoutes(openApiDocumentOf(api), () => ctx.listening));
  return api;
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
  // A mount's own calls made for a caller (the MCP server's) count against that caller's address.
  const onBehalf = createOnBehalf();
  if (options.observe) app.use('*', observeRequests(options.observe));
  useMiddleware(app, ctx, options.rateLimiter ?? createRateLimiter(ctx.store, ctx.config.rateLimitWindowSeconds), onBehalf);
  app.route(API_PREFIX, createApi(ctx, options));
  serveMounts(app, options.mounts ?? [], { apiPrefix: API_PREFIX, selfApiUrl: options.selfApiUrl, onBehalf, callerOf: (c, address) => callerOf(c.var.principal, address), analysis: ctx.pools.analysis });
  app.route('/', createProviderRoutes(ctx)); // the provider APIs (wire/providers.ts) as apps' SDKs call them
  // The web inbox viewer at `/`: static files, a client of the API above.
  if (options.viewerAssetsDir !== false) app.route('/', createViewerRoutes(options.viewerAssetsDir ? { assetsDir: options.viewerAssetsDir } : {}));
  // Also outside the API prefix, for process supervisors and load balancers.
  app.get('/healthz', (c) => c.json({ data: HealthSchema.parse({ status: 'ok' }) }));
  app.notFound(notFoundAnswer(API_PREFIX));
  app.onError(mapErrors({ logger: ctx.logger, maxRequestBytes: ctx.config.maxRequestBytes }));
  return app;
}
