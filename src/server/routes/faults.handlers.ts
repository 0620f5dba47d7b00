/**
 * Handlers of the delivery-fault extension: they check that the caller may see
 * the inbox, then call the server's fault table (`ctx.faults`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { DeliveryFaultRecord, DeliveryFaults } from '../faults/table.ts';
import { HttpError } from '../http/errors.ts';
import { createRouter } from '../http/router.ts';
import { clearDeliveryFaultRoute, getDeliveryFaultRoute, setDeliveryFaultRoute } from './faults.routes.ts';

function present(record: DeliveryFaultRecord) {
  return { ...record, createdAt: new Date(record.createdAt).toISOString() };
}

/**
 * The delivery-fault endpoints. An app whose context has no fault table (one
 * built without an SMTP intake that honours faults) answers them 404
 * `not_found`, as a server without the extension would.
 */
export function createFaultRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  const table = (): DeliveryFaults => {
    if (ctx.faults) return ctx.faults;
    throw new HttpError('not_found', 'This server does not inject delivery faults: it was started without a fault table (startServer and `inboxkit serve` have one).');
  };

  app.openapi(setDeliveryFaultRoute, async (c) => {
    const faults = table();
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    return c.json({ data: present(faults.set(inbox.id, c.req.valid('json'))) }, 200);
  });

  app.openapi(getDeliveryFaultRoute, async (c) => {
    const faults = table();
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    const fault = faults.get(inbox.id);
    return c.json({ data: { fault: fault ? present(fault) : null } }, 200);
  });

  app.openapi(clearDeliveryFaultRoute, async (c) => {
    const faults = table();
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    return c.json({ data: { inboxId: inbox.id, cleared: faults.clear(inbox.id) } }, 200);
  });

  return app;
}
