/**
 * One client's connection to `GET /inboxes/{id}/stream` (the route's behaviour
 * is in `stream.handlers.ts`): its queue, replay, catch-up, live delivery and
 * the checks that end it when access does.
 *
 * @packageDocumentation
 */
import { accessDeadline, concernsPrincipal } from '../auth/access.ts';
import type { AccessEnd } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import type { ServerContext } from '../context/context.ts';
import type { AccessRevokedReason } from '../../wire/schemas.ts';
import type { BusEvent } from '../events/types.ts';
import { formatEvent } from '../http/sse.ts';
import type { MessageRecord, MessageSummaryRecord } from '../storage/types.ts';
import { MAX_WHOLE_MESSAGE_EVENT_BYTES } from './stream.payload.ts';
import type { MessageFrames } from './stream.payload.ts';

const encoder = new TextEncoder();

/** What one stream connection needs besides its inbox. */
export interface ConnectionSettings {
  pingIntervalMs: number;
  maxBufferedBytes: number;
  replayPageSize: number;
  logger: ServerContext['logger'];
  /** The bytes of `message` events, shared by the router's connections. */
  frames: MessageFrames;
}

/** Longest delay a Node timer takes (about 24.8 days); a later deadline re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Who a stream was opened by, and how to ask again whether that credential
 * still grants the inbox.
 */
export interface StreamAccess {
  principal: Principal;
  /** The inbox's expiry when the stream opened (epoch ms), or null. */
  inboxExpiresAt: number | null;
  check(hint?: AccessRevokedReason): Promise<AccessEnd | null>;
  now(): number;
}

/** Where a connection reads its inbox's messages (the store). */
export interface StreamSource {
  /** The inbox's highest seq, or null once the inbox is gone. */
  lastSeq(): Promise<number | null>;
  /** Messages with seq > afterSeq, oldest first: whole records when the stream sends whole messages. */
  after(afterSeq: number, limit: number): Promise<(MessageSummaryRecord | MessageRecord)[]>;
}

/**
 * One client's stream of one inbox: a byte queue bounded at
 * `maxBufferedBytes`, the seq last sent (events at or below it are
 * duplicates), the bus events held back while the store is read or access is
 * being checked, a ping timer and a timer at the moment access ends by itself.
 * `cleanup` runs once, whichever way the connection ends.
 *
 * Reading the store after a seq is the one way this connection catches up: for
 * the `Last-Event-ID` replay at the start, when a live message skips a seq
 * (messages notified out of order by different nodes), and on a bus `resync`
 * (the bus lost its database connection for a while).
 */
export class StreamConnection {
  readonly body: ReadableStream<Uint8Array>;
  /** Called once when the connection ends, whichever way (gives back its stream slot). */
  onClose: () => void = () => {};
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
  private deadline: ReturnType<typeof setTimeout> | null = null;
  /** Access checks in flight: message events wait until they say access holds. */
  private checking = 0;
  private readonly inboxId: string;
  private readonly settings: ConnectionSettings;
  private readonly access: StreamAccess;
  private readonly source: StreamSource;
  /** `?include=message`: message events carry the whole message. */
  private readonly whole: boolean;
  /** The Node response under @hono/node-server, destroyed directly to drop a slow client. */
  private readonly outgoing: { destroy?: () => void } | undefined;

  constructor(inboxId: string, settings: ConnectionSettings, access: StreamAccess, source: StreamSource, outgoing: { destroy?: () => void } | undefined, whole = false) {
    this.inboxId = inboxId;
    this.settings = settings;
    this.access = access;
    this.source = source;
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

  /** Subscribes to the bus; events are held back until {@link start} has read the replay. */
  subscribe(bus: ServerContext['bus']): void {
    this.unsubscribe = bus.subscribe(this.inboxId, (event) => {
      if (this.closed) return;
      if (event.type === 'access.revoked') {
        if (concernsPrincipal(this.access.principal, event.userId, event.reason)) this.verify(event.reason);
        return;
      }
      if (!this.live || this.checking > 0) {
        // The store is being read, or access checked: keep it, bounded like the socket queue.
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
      this.end({ event: 'inbox.deleted' });
      return;
    }
    this.lastSeq = current;
    if (lastEventId !== null) await this.readAfter(lastEventId);
    if (this.closed) return;
    this.write(formatEvent('ready', { inboxId: this.inboxId, lastSeq: this.lastSeq }, this.lastSeq));
    this.live = true;
    this.flush();
  }

  write(text: string | Uint8Array): void {
    if (this.closed) return;
    this.controller.enqueue(typeof text === 'string' ? encoder.encode(text) : text);
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
  private room(): Promise<void> {
    if (this.closed || (this.controller.desiredSize ?? 1) > 0) return Promise.resolve();
    return new Promise((resolve) => (this.roomWaiter = resolve));
  }

  /** Delivers the events held back, unless an access check is in flight or one needs the store read again. */
  private flush(): void {
    if (this.closed || this.checking > 0) return;
    while (this.live && !this.closed && this.pending.length > 0) this.deliver(this.pending.shift() as BusEvent);
    this.checkOverflow();
  }

  /** Sends every stored message after `afterSeq`, page by page as the client takes them. */
  private async readAfter(afterSeq: number): Promise<void> {
    let after = afterSeq;
    for (;;) {
      await this.room();
      if (this.closed) return;
      const page = await this.source.after(after, this.settings.replayPageSize);
      for (const message of page) {
        this.write(this.settings.frames.frame(message, this.whole));
        // Only what was really sent counts: a Last-Event-ID beyond the inbox's
        // last seq must not hide the next messages as duplicates.
        this.lastSeq = Math.max(this.lastSeq, message.seq);
        after = message.seq;
      }
      if (page.length < this.settings.replayPageSize) return;
    }
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
          this.end({ event: 'inbox.deleted' });
          return;
        }
        await this.readAfter(this.lastSeq);
      } while (this.syncAgain && !this.closed);
    };
    run().then(
      () => {
        this.syncing = false;
        this.live = true;
        this.flush();
      },
      (error: unknown) => {
        this.syncing = false;
        this.settings.logger.warn({ err: error, inboxId: this.inboxId }, 'stream: catching up failed; disconnecting (the client resumes with Last-Event-ID)');
        this.drop(error instanceof Error ? error : new Error(String(error)));
      },
    );
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
    if (event.type === 'resync') {
      this.resync();
      return;
    }
    if (event.type !== 'message') {
      this.end({ event: event.type });
      return;
    }
    if (event.message.seq <= this.lastSeq) return;
    if (event.message.seq !== this.lastSeq + 1) {
      // A seq was skipped: an earlier message is still on its way, or was deleted. The store knows.
      this.resync();
      return;
    }
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
    this.onClose();
    this.unsubscribe();
    clearInterval(this.ping);
    if (this.deadline) clearTimeout(this.deadline);
    this.wakeReplay();
  }
}
