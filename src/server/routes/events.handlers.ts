/**
 * `GET /me/events`: one event stream for every inbox the caller can see, so the
 * viewer's list of inboxes updates as inboxes appear and go, without polling
 * (definition in `events.routes.ts`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { requireCredential } from '../auth/visibility.ts';
import type { Principal } from '../auth/principal.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { createRouter } from '../http/router.ts';
import { eventStreamResponse, formatEvent } from '../http/sse.ts';
import { createCallerFeed } from './events.feed.ts';
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
 *
 * The stream has no replay, but a bus gap (a `resync`: the PostgreSQL bus lost
 * its connection) is caught up here, the way a client would after a reconnect:
 * the caller's inboxes are listed again and compared with what the connection
 * knew — new ones are sent as `inbox.created`, vanished ones as
 * `inbox.deleted`/`inbox.expired`, and messages after the highest seq the
 * connection had seen of an inbox as `message` (live events inside a range
 * that was caught up are not repeated).
 */
export function createEventsRoutes(ctx: ServerContext, options: EventsRoutesOptions = {}): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  const pingIntervalMs = options.pingIntervalMs ?? 15_000;
  const maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;

  app.openapi(eventsRoute, async (c) => {
    const principal: Principal = c.var.principal;
    requireCredential(principal);
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
    const feed = await createCallerFeed(ctx, principal, write);
    const unsubscribe = ctx.bus.subscribeAll((event) => {
      if (closed) return;
      if (event.type === 'resync') feed.noteResync();
      // In order, one at a time: a lookup must not let a later event overtake an earlier one.
      chain = chain
        .then(() => feed.handle(event))
        .catch((error: unknown) => {
          ctx.logger.error({ err: error }, 'events: delivery failed');
          // A catch-up that failed: the client reconnects and lists the inboxes again.
          if (event.type === 'resync' && !closed) {
            cleanup();
            controller.error(new Error('inboxkit events: catching up failed'));
          }
        });
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
