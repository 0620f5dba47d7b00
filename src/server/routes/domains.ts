/**
 * `GET /domains`: the mail domains inboxes can be created on.
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { DomainSchema } from '../../wire/schemas.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { toWireDomain } from '../http/format.ts';
import { errorResponses, okResponse, security } from '../http/openapi.ts';
import { createRouter } from '../http/router.ts';

const listDomainsRoute = createRoute({
  method: 'get',
  path: '/domains',
  tags: ['Domains'],
  summary: 'List the mail domains',
  description: 'The configured domains, the default one first.',
  security: security.optional,
  responses: { ...okResponse(z.array(DomainSchema), 'The domains'), ...errorResponses() },
});

/** The domain routes (paths relative to `/api/v1`). */
export function createDomainRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(listDomainsRoute, async (c) => {
    const domains = await ctx.store.listDomains();
    return c.json({ data: domains.map(toWireDomain) }, 200);
  });
  return app;
}
