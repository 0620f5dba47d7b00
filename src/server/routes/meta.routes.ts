/**
 * Service endpoints: `GET /healthz` and `GET /openapi.json`.
 *
 * (route definitions; the behaviour is in the handlers module)
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import { HealthSchema } from '../../wire/schemas.ts';
import { errorResponses, jsonContent, okResponse, security } from '../http/openapi.ts';

/** `GET /healthz` */
export const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'getHealth',
  tags: ['Service'],
  summary: 'Liveness check',
  description: 'Answers `{ data: { status: "ok" } }` while the service runs. Also served at `/healthz`, outside the API prefix.',
  security: security.optional,
  responses: { ...okResponse(HealthSchema, 'The service is up'), ...errorResponses() },
});

/** `GET /openapi.json` */
export const openApiRoute = createRoute({
  method: 'get',
  path: '/openapi.json',
  operationId: 'getOpenApiDocument',
  tags: ['Service'],
  summary: 'This OpenAPI 3.1 document',
  security: security.optional,
  responses: {
    200: jsonContent(z.record(z.string(), z.unknown()).meta({ description: 'An OpenAPI 3.1 document' }), 'The OpenAPI document (not enveloped)'),
    ...errorResponses(),
  },
});
