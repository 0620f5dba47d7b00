/**
 * The event stream's behaviour (definition in `stream.routes.ts`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { accessDeadline, checkAccess, concernsPrincipal } from '../auth/access.ts';
import type { AccessEnd } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { AccessRevokedReason } from '../../wire/schemas.ts';
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

/** A Last-Event-ID value as a seq: a non-negative integer of at most 15 digits, or null when absent or empty. */
export function parseLastEventId(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const trimmed = value;
  if (!/^[0-9]{1,15}$/.test(trimmed)) {
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

/** Longest delay a Node timer takes (about 24.8 days); a later deadline re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Who a stream was opened by, and how to ask again whether that credential
 * still grants the inbox.
 */
interface StreamAccess {
  principal: Principal;
  /** The inbox's expiry when the stream opened (epoch ms), or null. */
  inboxExpiresAt: number | null;
  check(hint?: AccessRevokedReason): Promise<AccessEnd | null>;
  now(): number;
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
  private deadline: ReturnType<typeof setTimeout> | null = null;
  /** Access checks in flight: message events wait until they say access holds. */
  private checking = 0;
  private readonly inboxId: string;
  private readonly settings: ConnectionSettings;
  private readonly access: StreamAccess;
  /** The Node response under @hono/node-server, destroyed directly to drop a slow client. */
  private readonly outgoing: { destroy?: () => void } | undefined;

  constructor(inboxId: string, settings: ConnectionSettings, access: StreamAccess, outgoing: { destroy?: () => void } | undefined) {
    this.inboxId = inboxId;
    this.settings = settings;
    this.access = access;
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
    // Each ping also checks the credential again: a revocation made where this
    // process's bus cannot hear it (another process on the same database) ends
    // the stream within one interval.
    this.ping = setInterval(() => {
      this.write(': ping\n\n');
      this.checkOverflow();
      this.verify();
    }, settings.pingIntervalMs);
    this.ping.unref?.();
    this.armDeadline();
  }

  /** Whether the connection has ended. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Subscribes to the bus; events are held back until {@link goLive}. */
  subscribe(bus: ServerContext['bus']): void {
    this.unsubscribe = bus.subscribe(this.inboxId, (event) => {
      if (this.closed) return;
      if (event.type === 'access.revoked') {
        if (concernsPrincipal(this.access.principal, event.userId, event.reason)) this.verify(event.reason);
        return;
      }
      if (!this.live || this.checking > 0) {
        // The replay is still being read: keep it, bounded like the socket queue.
        this.pending.push(event);
        if (this.pending.length > 10_000) this.drop(new Error('inboxkit stream: too many events during replay'));
        return;
      }
      this.deliver(event);
      this.checkOverflow();
    });
  }

  write(text: string): void {
    if (this.closed) return;
    this.controller.enqueue(encoder.encode(text));
  }

  /** Sends one message from the replay. */
  replayed(message: MessageSummaryRecord): void {
    this.write(formatEvent('message', toMessageSummary(message), message.seq));
    // Only what was really sent counts: a Last-Event-ID beyond the inbox's
    // last seq must not hide the next messages as duplicates.
    this.lastSeq = Math.max(this.lastSeq, message.seq);
  }

  /** Ends the replay: `ready`, then the events held back, then live delivery. */
  goLive(): void {
    if (this.closed) return;
    this.write(formatEvent('ready', { inboxId: this.inboxId, lastSeq: this.lastSeq }, this.lastSeq));
    this.live = true;
    this.flush();
  }

  /**
   * Sends the closing event and ends the stream: `inbox.deleted` or
   * `inbox.expired` with `{ inboxId }`, or `access.revoked` with `{ inboxId, reason }`.
   */
  end(end: AccessEnd): void {
    if (this.closed) return;
    this.write(formatEvent(end.event, end.event === 'access.revoked' ? { inboxId: this.inboxId, reason: end.reason } : { inboxId: this.inboxId }));
    this.cleanup();
    this.controller.close();
  }

  /**
   * Checks the credential again; until the answer comes, message events are
   * held back, so none is sent once access has ended.
   */
  verify(hint?: AccessRevokedReason): void {
    if (this.closed) return;
    this.checking++;
    this.access.check(hint).then(
      (ended) => {
        this.checking--;
        if (ended) this.end(ended);
        else if (this.live) this.flush();
      },
      (error: unknown) => {
        this.checking--;
        this.settings.logger.error({ err: error, inboxId: this.inboxId }, 'stream: access check failed');
        this.drop(error instanceof Error ? error : new Error(String(error)));
      },
    );
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

  /** Delivers the events held back, unless an access check is still in flight. */
  private flush(): void {
    if (this.closed || this.checking > 0) return;
    for (const event of this.pending.splice(0)) this.deliver(event);
    this.checkOverflow();
  }

  /**
   * A timer at the moment access ends by itself (the inbox's or the session's
   * expiry), so the stream ends when HTTP starts refusing, not at the next sweep.
   * The clock may be injected: the timer checks it and re-arms while access holds.
   */
  private armDeadline(): void {
    const at = accessDeadline(this.access.principal, this.access.inboxExpiresAt);
    if (at === null || this.closed) return;
    const rest = at - this.access.now();
    // Already due but still granted (a clock that moved back): look again in a second, never in a hot loop.
    const delay = rest > 0 ? Math.min(MAX_TIMER_MS, rest) : this.deadline === null ? 0 : 1000;
    this.deadline = setTimeout(() => {
      if (this.closed) return;
      this.checking++;
      this.access.check().then(
        (ended) => {
          this.checking--;
          if (ended) return this.end(ended);
          if (this.live) this.flush();
          this.armDeadline();
        },
        (error: unknown) => {
          this.checking--;
          this.drop(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }, delay);
    this.deadline.unref?.();
  }

  private deliver(event: BusEvent): void {
    // A new inbox is news for the caller-wide `GET /me/events` only; a revocation is judged by the access check.
    if (this.closed || event.type === 'inbox.created' || event.type === 'access.revoked') return;
    if (event.type !== 'message') {
      this.end({ event: event.type });
      return;
    }
    if (event.message.seq <= this.lastSeq) return;
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
    if (this.deadline) clearTimeout(this.deadline);
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
    connection.end({ event: 'inbox.deleted' });
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
        connection.replayed(message);
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
  };

  app.openapi(streamRoute, async (c) => {
    const { id } = c.req.valid('param');
    const lastEventId = parseLastEventId(c.req.header('last-event-id') ?? c.req.valid('query').lastEventId);
    const principal = c.var.principal;
    const inbox = await loadVisibleInbox(ctx, principal, id);
    const outgoing = (c.env as { outgoing?: { destroy?: () => void } } | undefined)?.outgoing;
    const access: StreamAccess = {
      principal,
      inboxExpiresAt: inbox.expiresAt,
      check: (hint) => checkAccess(ctx, principal, inbox.id, hint),
      now: () => ctx.now(),
    };
    const connection = new StreamConnection(inbox.id, settings, access, outgoing);
    connection.write('retry: 2000\n\n');
    connection.subscribe(ctx.bus);
    // A revocation committed between the credential check above and the
    // subscription published its event to no one: check once more now.
    connection.verify();
    replayThenLive(ctx, connection, inbox.id, lastEventId, settings.replayPageSize).catch((error: unknown) => {
      settings.logger.error({ err: error, inboxId: inbox.id }, 'stream: replay failed');
      connection.drop(error instanceof Error ? error : new Error(String(error)));
    });

    return eventStreamResponse(connection.body);
  });

  return app;
}
