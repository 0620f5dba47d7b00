/**
 * `GET /domains`: the mail domains inboxes can be created on.
 *
 * (route definitions; the behaviour is in the handlers module)
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import { DomainSchema } from '../../wire/schemas.ts';
import { errorResponses, okResponse, security } from '../http/openapi.ts';

/** `GET /domains` */
export const listDomainsRoute = createRoute({
  method: 'get',
  path: '/domains',
  operationId: 'listDomains',
  tags: ['Domains'],
  summary: 'List the mail domains',
  description: 'The configured domains, the default one first.',
  security: security.optional,
  responses: { ...okResponse(z.array(DomainSchema), 'The domains'), ...errorResponses() },
});
