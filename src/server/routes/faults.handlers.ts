/**
 * Handlers of the delivery-fault extension: they check that the caller may see
 * the inbox, then call the server's fault table (`ctx.faults`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { DeliveryFaultRecord } from '../faults/table.ts';
import { createRouter } from '../http/router.ts';
import { clearDeliveryFaultRoute, getDeliveryFaultRoute, setDeliveryFaultRoute } from './faults.routes.ts';

function present(record: DeliveryFaultRecord) {
  return { ...record, createdAt: new Date(record.createdAt).toISOString() };
}

/**
 * The delivery-fault endpoints, on the context's fault table.
 */
export function createFaultRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();

  app.openapi(setDeliveryFaultRoute, async (c) => {
    const faults = ctx.faults;
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    return c.json({ data: present(await faults.set(inbox.id, c.req.valid('json'))) }, 200);
  });

  app.openapi(getDeliveryFaultRoute, async (c) => {
    const faults = ctx.faults;
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    const fault = await faults.get(inbox.id);
    return c.json({ data: { fault: fault ? present(fault) : null } }, 200);
  });

  app.openapi(clearDeliveryFaultRoute, async (c) => {
    const faults = ctx.faults;
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    return c.json({ data: { inboxId: inbox.id, cleared: await faults.clear(inbox.id) } }, 200);
  });

  return app;
}
