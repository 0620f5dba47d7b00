import type { OpenAPIHono } from '@hono/zod-openapi';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context.ts';
import type { InboxEvent } from '../events/types.ts';
import { ApiError } from '../http/errors.ts';
import { createRouter } from '../http/router.ts';
import { toMessageSummary } from '../mail/present.ts';
import type { MessageSummaryRecord } from '../storage/types.ts';
import { streamRoute } from './stream.routes.ts';

/** Options of {@link createStreamRoutes}. */
export interface StreamRoutesOptions {
  /**
   * Interval of the `: ping` comment.
   * @defaultValue 15_000
   */
  pingIntervalMs?: number;
  /**
   * Bytes a connection may have queued (not yet taken by the socket) before it
   * is dropped as too slow; the client resumes with Last-Event-ID.
   * @defaultValue 1 MiB
   */
  maxBufferedBytes?: number;
  /**
   * Messages read from the store per replay page.
   * @defaultValue 200
   */
  replayPageSize?: number;
}

const encoder = new TextEncoder();

/** One SSE event. `data` is JSON, which never contains a raw CR or LF. */
export function formatEvent(event: string, data: unknown, id?: number): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/** A Last-Event-ID value as a seq: a non-negative integer, or null when absent or empty. */
export function parseLastEventId(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const trimmed = value.trim();
  if (!/^\d{1,15}$/.test(trimmed)) {
    throw new ApiError('validation_error', `Last-Event-ID: must be the seq (a non-negative integer) of the last message event received, got ${JSON.stringify(value.slice(0, 40))}.`);
  }
  return Number(trimmed);
}

/**
 * `GET /inboxes/{id}/stream`: the Server-Sent Events stream of an inbox, as the
 * contract describes it. The bus is subscribed before the replay is read, and
 * events are de-duplicated by seq, so no message falls between replay and
 * live. Each connection has a bounded queue: a client that does not keep up is
 * disconnected instead of slowing anyone else. A closed connection
 * unsubscribes and stops its timer.
 */
export function createStreamRoutes(ctx: ServerContext, options: StreamRoutesOptions = {}): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  const pingIntervalMs = options.pingIntervalMs ?? 15_000;
  const maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
  const replayPageSize = options.replayPageSize ?? 200;
  const logger = ctx.logger.child({ component: 'stream' });

  app.openapi(streamRoute, async (c) => {
    const { id } = c.req.valid('param');
    const lastEventId = parseLastEventId(c.req.header('last-event-id') ?? c.req.valid('query').lastEventId);
    const inbox = await loadVisibleInbox(ctx, c.var.principal, id);
    const inboxId = inbox.id;

    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    let live = false;
    let lastSeq = 0;
    const pending: InboxEvent[] = [];
    let unsubscribe: () => void = () => {};
    let roomWaiter: (() => void) | null = null;

    // The callback runs no earlier than one interval from now, after everything below is set up.
    const ping = setInterval(() => {
      write(': ping\n\n');
      checkOverflow();
    }, pingIntervalMs);
    ping.unref?.();

    const cleanup = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      clearInterval(ping);
      roomWaiter?.();
      roomWaiter = null;
    };
    /**
     * Cuts the connection and discards what is queued. Under @hono/node-server
     * the socket is destroyed directly (quietly; the server then cancels the
     * body); elsewhere the body stream is errored.
     */
    const drop = (reason: Error): void => {
      if (closed) return;
      cleanup();
      const outgoing = (c.env as { outgoing?: { destroy?: () => void } } | undefined)?.outgoing;
      if (typeof outgoing?.destroy === 'function') outgoing.destroy();
      else controller.error(reason);
    };
    const write = (text: string): void => {
      if (closed) return;
      controller.enqueue(encoder.encode(text));
    };
    /** After a live write: a queue past the bound means the client is too slow. */
    const checkOverflow = (): void => {
      if (closed || (controller.desiredSize ?? 0) >= 0) return;
      logger.info({ inboxId, maxBufferedBytes }, 'stream: client too slow, disconnecting (it resumes with Last-Event-ID)');
      drop(new Error('inboxkit stream: client too slow'));
    };
    const end = (event: InboxEvent): void => {
      write(formatEvent(event.type, { inboxId }));
      cleanup();
      controller.close();
    };
    const deliver = (event: InboxEvent): void => {
      if (closed || event.type === 'inbox.created') return;
      if (event.type !== 'message') {
        end(event);
        return;
      }
      if (event.message.seq <= lastSeq) return;
      lastSeq = event.message.seq;
      write(formatEvent('message', toMessageSummary(event.message), event.message.seq));
    };
    /** Resolves once the client has taken enough that the queue is below its bound. */
    const room = (): Promise<void> =>
      closed || (controller.desiredSize ?? 1) > 0 ? Promise.resolve() : new Promise((resolve) => (roomWaiter = resolve));

    const body = new ReadableStream<Uint8Array>(
      {
        start(c) {
          controller = c;
        },
        pull() {
          roomWaiter?.();
          roomWaiter = null;
        },
        cancel() {
          cleanup();
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: maxBufferedBytes }),
    );

    write('retry: 2000\n\n');
    unsubscribe = ctx.bus.subscribe(inboxId, (event) => {
      if (closed) return;
      if (!live) {
        // The replay is still being read: keep it, bounded like the socket queue.
        pending.push(event);
        if (pending.length > 10_000) drop(new Error('inboxkit stream: too many events during replay'));
        return;
      }
      deliver(event);
      checkOverflow();
    });
    void (async () => {
      // Read after subscribing: whatever commits from now on is also in `pending`.
      const current = await ctx.store.findInboxById(inboxId);
      if (!current) {
        end({ type: 'inbox.deleted', inboxId });
        return;
      }
      lastSeq = current.lastSeq;
      if (lastEventId !== null) {
        let after = lastEventId;
        for (;;) {
          await room();
          if (closed) return;
          const page: MessageSummaryRecord[] = await ctx.store.listMessagesAfterSeq(inboxId, after, replayPageSize);
          for (const message of page) {
            write(formatEvent('message', toMessageSummary(message), message.seq));
            after = message.seq;
            // Only what was really sent counts: a Last-Event-ID beyond the inbox's
            // last seq must not hide the next messages as duplicates.
            lastSeq = Math.max(lastSeq, message.seq);
          }
          if (page.length < replayPageSize) break;
        }
      }
      if (closed) return;
      write(formatEvent('ready', { inboxId, lastSeq }, lastSeq));
      live = true;
      for (const event of pending.splice(0)) deliver(event);
      checkOverflow();
    })().catch((error: unknown) => {
      logger.error({ err: error, inboxId }, 'stream: replay failed');
      drop(error instanceof Error ? error : new Error(String(error)));
    });

    return new Response(body, {
      status: 200,
      headers: {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  });

  return app;
}
