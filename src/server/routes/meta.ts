/**
 * Service endpoints: `GET /healthz` and `GET /openapi.json`.
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { HealthSchema } from '../../wire/schemas.ts';
import type { AppEnv } from '../context/context.ts';
import { errorResponses, jsonContent, okResponse, security } from '../http/openapi.ts';
import { createRouter } from '../http/router.ts';

const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['Service'],
  summary: 'Liveness check',
  description: 'Answers `{ data: { status: "ok" } }` while the service runs. Also served at `/healthz`, outside the API prefix.',
  security: security.optional,
  responses: { ...okResponse(HealthSchema, 'The service is up'), ...errorResponses() },
});

const openApiRoute = createRoute({
  method: 'get',
  path: '/openapi.json',
  tags: ['Service'],
  summary: 'This OpenAPI 3.1 document',
  security: security.optional,
  responses: {
    200: jsonContent(z.record(z.string(), z.unknown()).meta({ description: 'An OpenAPI 3.1 document' }), 'The OpenAPI document (not enveloped)'),
    ...errorResponses(),
  },
});

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
