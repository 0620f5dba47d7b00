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
import { eventStreamResponse, formatEvent } from '../http/sse.ts';
import { toMessageSummary } from '../http/present.ts';
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
}

/** Where a connection reads its inbox's messages (the store). */
interface StreamSource {
  /** The inbox's highest seq, or null once the inbox is gone. */
  lastSeq(): Promise<number | null>;
  /** Messages with seq > afterSeq, oldest first. */
  after(afterSeq: number, limit: number): Promise<MessageSummaryRecord[]>;
}

/**
 * One client's stream of one inbox: a byte queue bounded at
 * `maxBufferedBytes`, the seq last sent (events at or below it are
 * duplicates), the bus events held back while the store is read, and a ping
 * timer. `cleanup` runs once, whichever way the connection ends.
 *
 * Reading the store after a seq is the one way this connection catches up: for
 * the `Last-Event-ID` replay at the start, when a live message skips a seq
 * (messages notified out of order by different nodes), and on a bus `resync`
 * (the bus lost its database connection for a while).
 */
class StreamConnection {
  readonly body: ReadableStream<Uint8Array>;
  /** The seq of the last message sent (or the inbox's last seq once live). */
  lastSeq = 0;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  /** False while the store is being read: bus events wait in `pending`. */
  private live = false;
  private syncing = false;
  private syncAgain = false;
  private readonly pending: BusEvent[] = [];
  private unsubscribe: () => void = () => {};
  private roomWaiter: (() => void) | null = null;
  private readonly ping: ReturnType<typeof setInterval>;
  private readonly inboxId: string;
  private readonly settings: ConnectionSettings;
  private readonly source: StreamSource;
  /** The Node response under @hono/node-server, destroyed directly to drop a slow client. */
  private readonly outgoing: { destroy?: () => void } | undefined;

  constructor(inboxId: string, settings: ConnectionSettings, source: StreamSource, outgoing: { destroy?: () => void } | undefined) {
    this.inboxId = inboxId;
    this.settings = settings;
    this.source = source;
    this.outgoing = outgoing;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.wakeReplay(),
        cancel: () => this.cleanup(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: settings.maxBufferedBytes }),
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

  /** Subscribes to the bus; events are held back until {@link start} has read the replay. */
  subscribe(bus: ServerContext['bus']): void {
    this.unsubscribe = bus.subscribe(this.inboxId, (event) => {
      if (this.closed) return;
      if (!this.live) {
        // The store is being read: keep it, bounded like the socket queue.
        this.pending.push(event);
        if (this.pending.length > 10_000) this.drop(new Error('inboxkit stream: too many events during replay'));
        return;
      }
      this.deliver(event);
      this.checkOverflow();
    });
  }

  /**
   * Reads the inbox after the connection subscribed (whatever commits from
   * then on is also held back), sends the messages after `lastEventId` page by
   * page as the client takes them, then `ready`, then goes live.
   */
  async start(lastEventId: number | null): Promise<void> {
    const current = await this.source.lastSeq();
    if (current === null) {
      this.end('inbox.deleted');
      return;
    }
    this.lastSeq = current;
    if (lastEventId !== null) await this.readAfter(lastEventId);
    if (this.closed) return;
    this.write(formatEvent('ready', { inboxId: this.inboxId, lastSeq: this.lastSeq }, this.lastSeq));
    this.goLive();
  }

  write(text: string): void {
    if (this.closed) return;
    this.controller.enqueue(encoder.encode(text));
  }

  /** Sends the closing event (`inbox.deleted` or `inbox.expired`) and ends the stream. */
  end(type: 'inbox.deleted' | 'inbox.expired'): void {
    if (this.closed) return;
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

  /** Sends every stored message after `afterSeq`, page by page as the client takes them. */
  private async readAfter(afterSeq: number): Promise<void> {
    let after = afterSeq;
    for (;;) {
      await this.room();
      if (this.closed) return;
      const page = await this.source.after(after, this.settings.replayPageSize);
      for (const message of page) {
        this.write(formatEvent('message', toMessageSummary(message), message.seq));
        // Only what was really sent counts: a Last-Event-ID beyond the inbox's
        // last seq must not hide the next messages as duplicates.
        this.lastSeq = Math.max(this.lastSeq, message.seq);
        after = message.seq;
      }
      if (page.length < this.settings.replayPageSize) return;
    }
  }

  /** Delivers the events held back, until one needs the store read again. */
  private goLive(): void {
    if (this.closed) return;
    this.live = true;
    while (this.live && !this.closed && this.pending.length > 0) this.deliver(this.pending.shift() as BusEvent);
    this.checkOverflow();
  }

  /**
   * Catches up from the store after the last seq sent (events meanwhile are
   * held back); a failure drops the connection, and the client resumes with
   * Last-Event-ID.
   */
  private resync(): void {
    if (this.syncing) {
      this.syncAgain = true;
      return;
    }
    this.syncing = true;
    this.live = false;
    const run = async () => {
      do {
        this.syncAgain = false;
        if ((await this.source.lastSeq()) === null) {
          this.end('inbox.deleted');
          return;
        }
        await this.readAfter(this.lastSeq);
      } while (this.syncAgain && !this.closed);
    };
    run().then(
      () => {
        this.syncing = false;
        this.goLive();
      },
      (error: unknown) => {
        this.syncing = false;
        this.settings.logger.warn({ err: error, inboxId: this.inboxId }, 'stream: catching up failed; disconnecting (the client resumes with Last-Event-ID)');
        this.drop(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  /** Resolves once the client has taken enough that the queue is below its bound. */
  private room(): Promise<void> {
    if (this.closed || (this.controller.desiredSize ?? 1) > 0) return Promise.resolve();
    return new Promise((resolve) => (this.roomWaiter = resolve));
  }

  private deliver(event: BusEvent): void {
    // A new inbox is news for the caller-wide `GET /me/events` only.
    if (this.closed || event.type === 'inbox.created') return;
    if (event.type === 'resync') {
      this.resync();
      return;
    }
    if (event.type !== 'message') {
      this.end(event.type);
      return;
    }
    if (event.message.seq <= this.lastSeq) return;
    if (event.message.seq !== this.lastSeq + 1) {
      // A seq was skipped: an earlier message is still on its way, or was deleted. The store knows.
      this.resync();
      return;
    }
    this.lastSeq = event.message.seq;
    this.write(formatEvent('message', toMessageSummary(event.message), event.message.seq));
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
 * `GET /inboxes/{id}/stream`: the Server-Sent Events stream of an inbox, as the
 * contract describes it. The bus is subscribed before the replay is read, and
 * events are de-duplicated by seq, so no message falls between replay and
 * live; a skipped seq or a bus `resync` makes the connection read the store
 * after its last seq, so none is missed either. Each connection has a bounded queue: a client that does not keep up is
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
  };

  app.openapi(streamRoute, async (c) => {
    const { id } = c.req.valid('param');
    const lastEventId = parseLastEventId(c.req.header('last-event-id') ?? c.req.valid('query').lastEventId);
    const inbox = await loadVisibleInbox(ctx, c.var.principal, id);
    const outgoing = (c.env as { outgoing?: { destroy?: () => void } } | undefined)?.outgoing;
    const source: StreamSource = {
      lastSeq: async () => (await ctx.store.findInboxById(inbox.id))?.lastSeq ?? null,
      after: (afterSeq, limit) => ctx.store.listMessagesAfterSeq(inbox.id, afterSeq, limit),
    };
    const connection = new StreamConnection(inbox.id, settings, source, outgoing);
    connection.write('retry: 2000\n\n');
    connection.subscribe(ctx.bus);
    connection.start(lastEventId).catch((error: unknown) => {
      settings.logger.error({ err: error, inboxId: inbox.id }, 'stream: replay failed');
      connection.drop(error instanceof Error ? error : new Error(String(error)));
    });

    return eventStreamResponse(connection.body);
  });

  return app;
}
