/**
 * The event stream's behaviour (definition in `stream.routes.ts`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { BusEvent } from '../events/types.ts';
import { HttpError } from '../http/errors.ts';
import { createRouter } from '../http/router.ts';
import type { MessageRecord, MessageSummaryRecord } from '../storage/types.ts';
import { createMessageFrames, MAX_WHOLE_MESSAGE_EVENT_BYTES } from './stream.payload.ts';
import type { MessageFrames } from './stream.payload.ts';
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
    throw new HttpError('validation_error', `Last-Event-ID: must be the seq (a non-negative integer) of the last message event received, got ${JSON.stringify(value.slice(0, 40))}.`);
  }
  return Number(trimmed);
}

/** What one stream connection needs besides its inbox. */
interface ConnectionSettings {
  pingIntervalMs: number;
  maxBufferedBytes: number;
  replayPageSize: number;
  logger: ServerContext['logger'];
  /** The bytes of `message` events, shared by the router's connections. */
  frames: MessageFrames;
}

/** Whether `?include=` asks for whole messages (a comma-separated list; other values are ignored). */
function includesMessage(include: string | undefined): boolean {
  return include !== undefined && include.split(',').some((part) => part.trim() === 'message');
}

/**
 * One client's stream of one inbox: a byte queue bounded at
 * `maxBufferedBytes`, the seq last sent (events at or below it are
 * duplicates), the bus events held back while the replay is read, and a ping
 * timer. `cleanup` runs once, whichever way the connection ends.
 */
class StreamConnection {
  readonly body: ReadableStream<Uint8Array>;
  /** The seq of the last message sent (or the inbox's last seq once live). */
  lastSeq = 0;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  private live = false;
  private readonly pending: BusEvent[] = [];
  private unsubscribe: () => void = () => {};
  private roomWaiter: (() => void) | null = null;
  private readonly ping: ReturnType<typeof setInterval>;
  private readonly inboxId: string;
  private readonly settings: ConnectionSettings;
  /** `?include=message`: message events carry the whole message. */
  readonly whole: boolean;
  /** The Node response under @hono/node-server, destroyed directly to drop a slow client. */
  private readonly outgoing: { destroy?: () => void } | undefined;

  constructor(inboxId: string, settings: ConnectionSettings, outgoing: { destroy?: () => void } | undefined, whole: boolean) {
    this.inboxId = inboxId;
    this.settings = settings;
    this.outgoing = outgoing;
    this.whole = whole;
    // A whole message may take up to 1 MiB in one event: the bound leaves room for one beyond the usual queue.
    const bound = settings.maxBufferedBytes + (whole ? MAX_WHOLE_MESSAGE_EVENT_BYTES : 0);
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.wakeReplay(),
        cancel: () => this.cleanup(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: bound }),
    );
    // The callback runs no earlier than one interval from now, after the connection is set up.
    this.ping = setInterval(() => {
      this.write(': ping\n\n');
      this.checkOverflow();
    }, settings.pingIntervalMs);
    this.ping.unref?.();
  }

  /** Whether the connection has ended. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Subscribes to the bus; events are held back until {@link goLive}. */
  subscribe(bus: ServerContext['bus']): void {
    this.unsubscribe = bus.subscribe(this.inboxId, (event) => {
      if (this.closed) return;
      if (!this.live) {
        // The replay is still being read: keep it, bounded like the socket queue.
        this.pending.push(event);
        if (this.pending.length > 10_000) this.drop(new Error('inboxkit stream: too many events during replay'));
        return;
      }
      this.deliver(event);
      this.checkOverflow();
    });
  }

  write(text: string | Uint8Array): void {
    if (this.closed) return;
    this.controller.enqueue(typeof text === 'string' ? encoder.encode(text) : text);
  }

  /** Sends one message from the replay (whole when it was read whole). */
  replayed(message: MessageSummaryRecord | MessageRecord): void {
    this.write(this.settings.frames.frame(message, this.whole));
    // Only what was really sent counts: a Last-Event-ID beyond the inbox's
    // last seq must not hide the next messages as duplicates.
    this.lastSeq = Math.max(this.lastSeq, message.seq);
  }

  /** Ends the replay: `ready`, then the events held back, then live delivery. */
  goLive(): void {
    if (this.closed) return;
    this.write(formatEvent('ready', { inboxId: this.inboxId, lastSeq: this.lastSeq }, this.lastSeq));
    this.live = true;
    for (const event of this.pending.splice(0)) this.deliver(event);
    this.checkOverflow();
  }

  /** Sends the closing event (`inbox.deleted` or `inbox.expired`) and ends the stream. */
  end(type: 'inbox.deleted' | 'inbox.expired'): void {
    this.write(formatEvent(type, { inboxId: this.inboxId }));
    this.cleanup();
    this.controller.close();
  }

  /**
   * Cuts the connection and discards what is queued. Under @hono/node-server
   * the socket is destroyed directly (quietly; the server then cancels the
   * body); elsewhere the body stream is errored.
   */
  drop(reason: Error): void {
    if (this.closed) return;
    this.cleanup();
    if (typeof this.outgoing?.destroy === 'function') this.outgoing.destroy();
    else this.controller.error(reason);
  }

  /** Resolves once the client has taken enough that the queue is below its bound. */
  room(): Promise<void> {
    if (this.closed || (this.controller.desiredSize ?? 1) > 0) return Promise.resolve();
    return new Promise((resolve) => (this.roomWaiter = resolve));
  }

  private deliver(event: BusEvent): void {
    if (this.closed) return;
    if (event.type !== 'message') {
      this.end(event.type);
      return;
    }
    if (event.message.seq <= this.lastSeq) return;
    this.lastSeq = event.message.seq;
    this.write(this.settings.frames.frame(event.message, this.whole));
  }

  /** After a live write: a queue past the bound means the client is too slow. */
  private checkOverflow(): void {
    if (this.closed || (this.controller.desiredSize ?? 0) >= 0) return;
    this.settings.logger.info({ inboxId: this.inboxId, maxBufferedBytes: this.settings.maxBufferedBytes }, 'stream: client too slow, disconnecting (it resumes with Last-Event-ID)');
    this.drop(new Error('inboxkit stream: client too slow'));
  }

  private wakeReplay(): void {
    this.roomWaiter?.();
    this.roomWaiter = null;
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    clearInterval(this.ping);
    this.wakeReplay();
  }
}

/**
 * Reads the inbox after the connection subscribed (whatever commits from then
 * on is also held back by the connection), sends the messages after
 * `lastEventId` page by page as the client takes them, then goes live.
 */
async function replayThenLive(ctx: ServerContext, connection: StreamConnection, inboxId: string, lastEventId: number | null, pageSize: number): Promise<void> {
  const current = await ctx.store.findInboxById(inboxId);
  if (!current) {
    connection.end('inbox.deleted');
    return;
  }
  connection.lastSeq = current.lastSeq;
  if (lastEventId !== null) {
    let after = lastEventId;
    for (;;) {
      await connection.room();
      if (connection.isClosed) return;
      const page = await ctx.store.listMessagesAfterSeq(inboxId, after, pageSize);
      for (const message of page) {
        // Whole messages are read one at a time (a message deleted meanwhile goes as its summary).
        connection.replayed(connection.whole ? ((await ctx.store.findMessage(message.id)) ?? message) : message);
        after = message.seq;
      }
      if (page.length < pageSize) break;
    }
  }
  connection.goLive();
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
  const settings: ConnectionSettings = {
    pingIntervalMs: options.pingIntervalMs ?? 15_000,
    maxBufferedBytes: options.maxBufferedBytes ?? 1024 * 1024,
    replayPageSize: options.replayPageSize ?? 200,
    logger: ctx.logger.child({ component: 'stream' }),
    frames: createMessageFrames(),
  };

  app.openapi(streamRoute, async (c) => {
    const { id } = c.req.valid('param');
    const query = c.req.valid('query');
    const lastEventId = parseLastEventId(c.req.header('last-event-id') ?? query.lastEventId);
    const inbox = await loadVisibleInbox(ctx, c.var.principal, id);
    const outgoing = (c.env as { outgoing?: { destroy?: () => void } } | undefined)?.outgoing;
    const connection = new StreamConnection(inbox.id, settings, outgoing, includesMessage(query.include));
    connection.write('retry: 2000\n\n');
    connection.subscribe(ctx.bus);
    replayThenLive(ctx, connection, inbox.id, lastEventId, settings.replayPageSize).catch((error: unknown) => {
      settings.logger.error({ err: error, inboxId: inbox.id }, 'stream: replay failed');
      connection.drop(error instanceof Error ? error : new Error(String(error)));
    });

    return new Response(connection.body, {
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
