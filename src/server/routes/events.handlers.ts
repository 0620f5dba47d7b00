/**
 * `GET /me/events`: one event stream for every inbox the caller can see, so the
 * viewer's list of inboxes updates as inboxes appear and go, without polling
 * (definition in `events.routes.ts`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { canSee, isActive, requireCredential } from '../auth/visibility.ts';
import type { Principal } from '../auth/principal.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { BusEvent } from '../events/types.ts';
import { toMessageSummary, toWireInbox } from '../http/present.ts';
import { createRouter } from '../http/router.ts';
import { eventStreamResponse, formatEvent } from '../http/sse.ts';
import { eventsRoute } from './events.routes.ts';

/** Options of {@link createEventsRoutes}. */
export interface EventsRoutesOptions {
  /**
   * Interval of the `: ping` comment.
   * @defaultValue 15_000
   */
  pingIntervalMs?: number;
  /**
   * Bytes a connection may have queued before it is dropped as too slow.
   * @defaultValue 1 MiB
   */
  maxBufferedBytes?: number;
}

const encoder = new TextEncoder();

/**
 * The caller-wide event stream. Which inbox an event is about decides whether
 * the caller gets it, by the same rule as every other endpoint (`canSee`); the
 * answer is remembered per connection, so a deleted inbox's event reaches those
 * who could see it, and nobody else learns its id.
 */
export function createEventsRoutes(ctx: ServerContext, options: EventsRoutesOptions = {}): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  const pingIntervalMs = options.pingIntervalMs ?? 15_000;
  const maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;

  app.openapi(eventsRoute, async (c) => {
    const principal: Principal = c.var.principal;
    requireCredential(principal);
    /** Inbox id → whether this caller may see it (filled as events come). */
    const visible = new Map<string, boolean>();
    if (principal.kind === 'apiKey' || principal.kind === 'session') {
      // The user's current inboxes, so that their deletion is reported too.
      let cursor: string | null = null;
      do {
        const page = await ctx.store.listInboxesByOwner(principal.user.id, { cursor, limit: 100, now: ctx.now() });
        for (const inbox of page.items) visible.set(inbox.id, true);
        cursor = page.nextCursor;
      } while (cursor !== null);
    }
    const mayLookUp = async (inboxId: string): Promise<boolean> => {
      if (principal.kind === 'operator') return true;
      if (principal.kind === 'inboxToken') return inboxId === principal.inboxId;
      const known = visible.get(inboxId);
      if (known !== undefined) return known;
      const inbox = await ctx.store.findInboxById(inboxId);
      const seen = inbox !== null && canSee(principal, inbox);
      visible.set(inboxId, seen);
      return seen;
    };

    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    let chain: Promise<void> = Promise.resolve();
    const write = (text: string) => {
      if (closed) return;
      controller.enqueue(encoder.encode(text));
      if ((controller.desiredSize ?? 0) < 0) {
        ctx.logger.info({ maxBufferedBytes }, 'events: client too slow, disconnecting');
        cleanup();
        controller.error(new Error('inboxkit events: client too slow'));
      }
    };
    const handle = async (event: BusEvent): Promise<void> => {
      if (event.type === 'inbox.deleted' || event.type === 'inbox.expired') {
        const seen = principal.kind === 'operator' || (principal.kind === 'inboxToken' ? event.inboxId === principal.inboxId : visible.get(event.inboxId) === true);
        visible.delete(event.inboxId);
        if (seen) write(formatEvent(event.type, { inboxId: event.inboxId }));
        return;
      }
      if (!(await mayLookUp(event.inboxId))) return;
      if (event.type === 'message') {
        write(formatEvent('message', { inboxId: event.inboxId, message: toMessageSummary(event.message) }));
        return;
      }
      const inbox = await ctx.store.findInboxById(event.inboxId);
      if (inbox && isActive(inbox, ctx.now())) write(formatEvent('inbox.created', toWireInbox(inbox)));
    };
    const unsubscribe = ctx.bus.subscribeAll((event) => {
      if (closed) return;
      // In order, one at a time: a lookup must not let a later event overtake an earlier one.
      chain = chain.then(() => handle(event)).catch((error: unknown) => ctx.logger.error({ err: error }, 'events: delivery failed'));
    });
    const ping = setInterval(() => write(': ping\n\n'), pingIntervalMs);
    ping.unref?.();
    function cleanup() {
      if (closed) return;
      closed = true;
      unsubscribe();
      clearInterval(ping);
    }

    const body = new ReadableStream<Uint8Array>(
      {
        start(c) {
          controller = c;
        },
        cancel() {
          cleanup();
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: maxBufferedBytes }),
    );
    write('retry: 2000\n\n');
    write(formatEvent('ready', {}));
    return eventStreamResponse(body);
  });

  return app;
}
