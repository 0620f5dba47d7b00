/**
 * `GET /me/events`: one event stream for every inbox the caller can see, so the
 * viewer's list of inboxes updates as inboxes appear and go, without polling
 * (definition in `events.routes.ts`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { accessDeadline, checkCredential, concernsPrincipal } from '../auth/access.ts';
import { requireCredential } from '../auth/visibility.ts';
import type { Principal } from '../auth/principal.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { AccessRevokedReason } from '../../wire/schemas.ts';
import type { BusEvent } from '../events/types.ts';
import { credentialKeyOf } from '../auth/caps.ts';
import { clientAddressOf } from '../http/client-address.ts';
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

/** Longest delay a Node timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Watches the credential a caller-wide stream was opened with: checks it again
 * when an `access.revoked` event may concern it, at each ping, and when a
 * session reaches its expiry; calls `ended` once with the reason when it no
 * longer holds. Returns the function that stops the watch.
 */
function watchCredential(
  ctx: ServerContext,
  principal: Principal,
  ended: (reason: AccessRevokedReason) => void,
): { verify(hint?: AccessRevokedReason): Promise<void>; concerns(event: BusEvent): boolean; stop(): void } {
  let stopped = false;
  let deadline: ReturnType<typeof setTimeout> | null = null;
  const verify = async (hint?: AccessRevokedReason): Promise<void> => {
    if (stopped) return;
    const end = await checkCredential(ctx, principal, hint);
    if (end && !stopped) ended(end.reason);
  };
  const arm = (): void => {
    const at = accessDeadline(principal, null);
    if (at === null || stopped) return;
    deadline = setTimeout(() => void verify().then(arm), Math.min(MAX_TIMER_MS, Math.max(at - ctx.now(), 1000)));
    deadline.unref?.();
  };
  arm();
  return {
    verify,
    concerns: (event) => event.type === 'access.revoked' && concernsPrincipal(principal, event.userId, event.reason),
    stop() {
      stopped = true;
      if (deadline) clearTimeout(deadline);
    },
  };
}

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
    const release = ctx.streamCaps.acquire(credentialKeyOf(principal), clientAddressOf(c));
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
    const feed = await createCallerFeed(ctx, principal, write).catch((error: unknown) => {
      release();
      throw error;
    });
    /** The last event says why, then the connection ends: the credential no longer opens anything. */
    const end = (event: string, data: unknown): void => {
      write(formatEvent(event, data));
      if (closed) return;
      cleanup();
      controller.close();
    };
    const credential = watchCredential(ctx, principal, (reason) => end('access.revoked', { reason }));
    const handle = async (event: BusEvent): Promise<void> => {
      if (event.type === 'access.revoked') {
        if (credential.concerns(event)) await credential.verify(event.reason);
        return;
      }
      // An inbox token dies with its inbox: its stream ends with that news.
      if ((event.type === 'inbox.deleted' || event.type === 'inbox.expired') && principal.kind === 'inboxToken' && event.inboxId === principal.inboxId) {
        return end(event.type, { inboxId: event.inboxId });
      }
      await feed.handle(event);
    };
    // In order, one at a time: a lookup must not let a later event overtake an earlier one.
    const enqueue = (work: () => Promise<void>, catchingUp = false): void => {
      chain = chain.then(work).catch((error: unknown) => {
        ctx.logger.error({ err: error }, 'events: delivery failed');
        // A catch-up that failed: the client reconnects and lists the inboxes again.
        if (catchingUp && !closed) {
          cleanup();
          controller.error(new Error('inboxkit events: catching up failed'));
        }
      });
    };
    const unsubscribe = ctx.bus.subscribeAll((event) => {
      if (closed) return;
      if (event.type === 'resync') feed.noteResync();
      enqueue(() => handle(event), event.type === 'resync');
    });
    // Once more now that it listens: a revocation between the request's check and the subscription ends it too.
    enqueue(() => credential.verify());
    // Each ping also checks the credential again (a revocation made where this node's bus did not hear it).
    const ping = setInterval(() => {
      write(': ping\n\n');
      enqueue(() => credential.verify());
    }, pingIntervalMs);
    ping.unref?.();
    function cleanup() {
      if (closed) return;
      closed = true;
      release();
      unsubscribe();
      clearInterval(ping);
      credential.stop();
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
