/**
 * Service endpoints: `GET /healthz`, `GET /openapi.json` and `GET /service`.
 *
 * (route definitions; the behaviour is in the handlers module)
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import { HealthSchema } from '../../wire/schemas.ts';
import { ServiceListenersSchema } from '../../wire/service.ts';
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

/** `GET /service` (an extension): the service's mail listeners. */
export const serviceRoute = createRoute({
  method: 'get',
  path: '/service',
  operationId: 'getServiceListeners',
  tags: ['Service'],
  summary: 'Where the mail listeners are (SMTP, IMAP, POP3)',
  description: 'The host and port of the SMTP intake, and of IMAP and POP3 when the service was started with them (`null` otherwise), for a client or the viewer to say how to read an inbox the standard way.',
  'x-inboxkit-extension': true,
  security: security.optional,
  responses: { ...okResponse(ServiceListenersSchema, 'The listeners'), ...errorResponses() },
});
