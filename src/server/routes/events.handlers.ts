/**
 * `GET /me/events`: one event stream for every inbox the caller can see, so the
 * viewer's list of inboxes updates as inboxes appear and go, without polling
 * (definition in `events.routes.ts`; the connection and its policy in
 * `src/server/streams/`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono, RouteHandler } from '@hono/zod-openapi';
import { requireCredential } from '../auth/visibility.ts';
import type { Principal } from '../auth/principal.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { credentialKeyOf, ownStreamCapOf } from '../auth/caps.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { createRouter } from '../http/router.ts';
import { callerFeedPolicy } from '../streams/caller-feed.ts';
import { createMessageFrames } from '../streams/frames.ts';
import { openEventStream, streamAccess } from '../streams/open.ts';
import { createChunkFraming } from '../streams/socket-sink.ts';
import type { StreamSettings } from '../streams/open.ts';
import { eventsRoute } from './events.routes.ts';

/** Options of {@link createEventsRoutes}. */
export type EventsRoutesOptions = StreamSettings;

/**
 * `GET /me/events`: the caller-wide event stream. Opened with an inbox token,
 * it is bound to that inbox as an inbox stream is: it ends at the inbox's
 * expiry or deletion.
 */
function openCallerFeed(ctx: ServerContext, options: EventsRoutesOptions): RouteHandler<typeof eventsRoute, AppEnv> {
  const logger = ctx.logger.child({ component: 'events' });
  const framing = createChunkFraming();
  const frames = createMessageFrames();
  return async (c) => {
    const principal: Principal = c.var.principal;
    requireCredential(principal);
    const inbox = principal.kind === 'inboxToken' ? await ctx.store.findInboxById(principal.inboxId) : null;
    const address = clientAddressOf(c);
    return openEventStream(c, {
      label: 'events',
      logger,
      settings: options,
      admit: () => ctx.streamCaps.acquire(credentialKeyOf(principal), address, ownStreamCapOf(principal)),
      live: ctx.liveStreams,
      access: streamAccess(ctx, principal, principal.kind === 'inboxToken' ? { id: principal.inboxId, expiresAt: inbox?.expiresAt ?? null } : null),
      subscribe: (listener) => ctx.bus.subscribeAll(listener),
      policy: () => callerFeedPolicy(ctx, principal, frames),
      framing,
    });
  };
}

/** The caller-wide event stream's route (paths relative to `/api/v1`). */
export function createEventsRoutes(ctx: ServerContext, options: EventsRoutesOptions = {}): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(eventsRoute, openCallerFeed(ctx, options));
  return app;
}
