/**
 * Service endpoints: `GET /healthz` and `GET /openapi.json`.
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context/context.ts';
import { createRouter } from '../http/router.ts';
import { healthRoute, openApiRoute } from './meta.routes.ts';

/**
 * The service routes.
 *
 * @param openApiDocument - Produces the document served at `/openapi.json`.
 */
export function createMetaRoutes(openApiDocument: () => object): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(healthRoute, (c) => c.json({ data: { status: 'ok' as const } }, 200));
  app.openapi(openApiRoute, (c) => c.json(openApiDocument() as Record<string, unknown>, 200));
  return app;
}
