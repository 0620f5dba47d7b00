/**
 * Service endpoints: `GET /healthz`, `GET /openapi.json` and `GET /service`.
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context/context.ts';
import { createRouter } from '../http/router.ts';
import { healthRoute, openApiRoute, serviceRoute } from './meta.routes.ts';
import type { ServiceListeners } from '../../wire/service.ts';

/**
 * The service routes.
 *
 * @param openApiDocument - Produces the document served at `/openapi.json`.
 * @param listeners - Where the service's mail listeners are (known once they listen).
 */
export function createMetaRoutes(openApiDocument: () => object, listeners: () => ServiceListeners = () => ({ smtp: null, imap: null, pop3: null })): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(healthRoute, (c) => c.json({ data: { status: 'ok' as const } }, 200));
  app.openapi(openApiRoute, (c) => c.json(openApiDocument() as Record<string, unknown>, 200));
  app.openapi(serviceRoute, (c) => c.json({ data: listeners() }, 200));
  return app;
}
