/**
 * Handlers of the delivery-fault extension: they check that the caller may see
 * the inbox, then call the server's fault table (`ctx.faults`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono, RouteHandler } from '@hono/zod-openapi';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { DeliveryFaultRecord } from '../faults/table.ts';
import { createRouter } from '../http/router.ts';
import { clearDeliveryFaultRoute, getDeliveryFaultRoute, setDeliveryFaultRoute } from './faults.routes.ts';

function present(record: DeliveryFaultRecord) {
  return { ...record, createdAt: new Date(record.createdAt).toISOString() };
}

/** `PUT /inboxes/{id}/delivery-fault`: the fault the next deliveries meet. */
function setDeliveryFault(ctx: ServerContext): RouteHandler<typeof setDeliveryFaultRoute, AppEnv> {
  return async (c) => {
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    return c.json({ data: present(await ctx.faults.set(inbox.id, c.req.valid('json'))) }, 200);
  };
}

/** `GET /inboxes/{id}/delivery-fault`: the fault in force, or null. */
function getDeliveryFault(ctx: ServerContext): RouteHandler<typeof getDeliveryFaultRoute, AppEnv> {
  return async (c) => {
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    const fault = await ctx.faults.get(inbox.id);
    return c.json({ data: { fault: fault ? present(fault) : null } }, 200);
  };
}

/** `DELETE /inboxes/{id}/delivery-fault`: mail is accepted normally again. */
function clearDeliveryFault(ctx: ServerContext): RouteHandler<typeof clearDeliveryFaultRoute, AppEnv> {
  return async (c) => {
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    return c.json({ data: { inboxId: inbox.id, cleared: await ctx.faults.clear(inbox.id) } }, 200);
  };
}

/**
 * The delivery-fault endpoints, on the context's fault table.
 */
export function createFaultRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(setDeliveryFaultRoute, setDeliveryFault(ctx));
  app.openapi(getDeliveryFaultRoute, getDeliveryFault(ctx));
  app.openapi(clearDeliveryFaultRoute, clearDeliveryFault(ctx));
  return app;
}
