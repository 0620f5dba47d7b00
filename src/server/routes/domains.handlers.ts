/**
 * `GET /domains`: the mail domains inboxes can be created on.
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { toWireDomain } from '../http/present.ts';
import { createRouter } from '../http/router.ts';
import { listDomainsRoute } from './domains.routes.ts';

/** The domain routes (paths relative to `/api/v1`). */
export function createDomainRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(listDomainsRoute, async (c) => {
    const domains = await ctx.store.listDomains();
    return c.json({ data: domains.map(toWireDomain) }, 200);
  });
  return app;
}
