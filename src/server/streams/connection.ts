/**
 * One Server-Sent Events connection, the one both streams use
 * (`GET /inboxes/{id}/stream` and `GET /me/events`): the bounded queue, the
 * writes, the final event, the slow-client drop, the ping with its credential
 * re-check, the access deadline and the cleanup. What differs between the two
 * streams is a {@link StreamPolicy}: what to send first, and what to send of
 * each bus event.
 *
 * @packageDocumentation
 */
import type { AccessEnd } from '../auth/access.ts';
import type { ServerContext } from '../context/context.ts';
import type { BusEvent } from '../events/types.ts';
import { formatEvent } from '../http/sse.ts';
import type { AccessRevokedReason } from '../../wire/schemas.ts';
import { createChunkFraming, socketSinkOf } from './socket-sink.ts';
import type { ChunkFraming, NodeOutgoing, SocketSink } from './socket-sink.ts';

const encoder = new TextEncoder();

const byteLength = (chunk: Uint8Array): number => chunk.byteLength;

/** Longest delay a Node timer takes (about 24.8 days); a later deadline re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Bus events and checks one connection may hold back while it reads the store or checks access. */
export const MAX_HELD_TASKS = 10_000;

/** The timers a connection uses; injected in tests that count them. */
export interface ConnectionTimers {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's own timers, unref'd so that an open stream never keeps Node alive. */
export const nodeTimers: ConnectionTimers = {
  setInterval: (callback, ms) => setInterval(callback, ms).unref(),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Whether the credential that opened a connection still grants what it
 * streams, and when that ends by itself. Injected: the route builds it.
 */
export interface ConnectionAccess {
  /** The instant (epoch ms) access ends by itself (the inbox's or the session's expiry), or null. */
  deadline: number | null;
  /**
   * The inbox whose going ends the connection at once (`inbox.deleted` or
   * `inbox.expired`): the inbox stream's inbox, or the inbox of an inbox
   * token on `GET /me/events`; null when no one inbox does.
   */
  inboxId: string | null;
  /** Checks again, now; null while access holds, otherwise how it ended. */
  check(hint?: AccessRevokedReason): Promise<AccessEnd | null>;
  /** Whether an `access.revoked` bus event may concern this credential (then it is checked again). */
  concerns(event: Extract<BusEvent, { type: 'access.revoked' }>): boolean;
  /** The clock, in epoch milliseconds. */
  now(): number;
}

/** What one stream sends: the one part that differs between the two streams. */
export interface StreamPolicy {
  /** Sends what comes before live events (a replay, `ready`); bus events wait until it is done. */
  start(connection: SseConnection): Promise<void>;
  /** Sends what the client should get of one bus event (called in order, one at a time). */
  handle(event: BusEvent, connection: SseConnection): void | Promise<void>;
  /** Sees each bus event as it arrives, before it waits its turn (to merge several `resync`s into one catch-up). */
  noticed?(event: BusEvent): void;
  /** The data of the closing event. */
  endData(end: AccessEnd): unknown;
}

/** What a connection needs besides its policy. */
export interface ConnectionOptions {
  /** Names the stream in logs (`stream`, `events`). */
  label: string;
  /** Fields every log line of this connection carries (the inbox id). */
  logFields?: Record<string, unknown>;
  logger: ServerContext['logger'];
  pingIntervalMs: number;
  /** Bytes queued (not yet taken by the socket) past which the client is dropped as too slow. */
  maxBufferedBytes: number;
  access: ConnectionAccess;
  /**
   * The Node response under @hono/node-server: destroyed directly to drop a
   * slow client and, once the adapter has sent the headers and everything
   * queued before, written directly (see {@link SseConnection}).
   */
  outgoing?: NodeOutgoing;
  /**
   * Frames direct writes as HTTP/1.1 chunks; share one between the
   * connections of a router, so that a message event is framed once.
   * @defaultValue one for this connection
   */
  framing?: ChunkFraming;
  /** @defaultValue {@link nodeTimers} */
  timers?: ConnectionTimers;
  /**
   * Runs once when the connection ends, whichever way: the place to release
   * what was acquired when it was admitted (see `openEventStream`).
   */
  onClose?: () => void;
  /** Told of each event sent and of a slow client dropped (the node's metrics). */
  note?: (what: 'event' | 'slow_client_dropped') => void;
}

type Task = () => void | Promise<void>;

/**
 * One client's event stream: a byte queue bounded at `maxBufferedBytes`; a
 * queue of tasks (bus events, access checks, the policy's start) run in
 * order, one at a time, so that nothing is sent while the store is read or
 * access is being checked; a ping timer that also checks the credential
 * again; a timer at the moment access ends by itself. `end` sends a final
 * event, `drop` cuts the connection; either way the cleanup runs once.
 *
 * The bytes go out through {@link SseConnection.body} until the adapter has
 * written the headers and everything queued before and waits for more (its
 * read is pending: the body's `pull`); from then on, under Node, they are
 * written to the socket directly and at once, as HTTP/1.1 chunks, with no
 * promise, tick or cork per chunk (`socket-sink.ts`), so that one bus event
 * reaches 1,000 sockets in one pass. The body stays open (its read pending)
 * until the connection ends, and then closes, which ends the response after
 * the last direct write. The bound is the same either way: the bytes queued
 * in the body, then the bytes the socket holds.
 */
export class SseConnection {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  /** The socket, once it is written directly. */
  #sink: SocketSink | null = null;
  #stopDrain: () => void = () => {};
  readonly #bound: number;
  #closed = false;
  #busy = false;
  readonly #held: Task[] = [];
  #unsubscribe: () => void = () => {};
  #roomWaiter: (() => void) | null = null;
  readonly #ping: unknown;
  #deadline: unknown = null;
  #deadlineArmed = false;
  #handOverTimer: unknown = null;
  readonly #options: ConnectionOptions;
  readonly #timers: ConnectionTimers;

  /**
   * @param extraBytes - Room beyond `maxBufferedBytes` for one large event (a whole message).
   */
  constructor(options: ConnectionOptions, extraBytes = 0) {
    this.#options = options;
    this.#timers = options.timers ?? nodeTimers;
    this.#bound = options.maxBufferedBytes + extraBytes;
    // High-water mark 0: `pull` runs only while the reader waits, that is when
    // everything enqueued so far has been handed over. The bound is checked here.
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          this.#goDirect();
          this.#wakeRoom();
        },
        cancel: () => this.#cleanup(),
      },
      { highWaterMark: 0, size: byteLength },
    );
    // Each ping also checks the credential again: a revocation made where this
    // process's bus cannot hear it (another process on the same database) ends
    // the stream within one interval.
    this.#ping = this.#timers.setInterval(() => {
      this.write(': ping\n\n');
      this.#checkOverflow();
      this.enqueue(() => this.#verify());
    }, options.pingIntervalMs);
    this.#armDeadline();
  }

  /** Whether the connection has ended (nothing more is written). */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Starts the stream: `retry: 2000`, the bus subscription (events wait
   * until `policy.start` is done), one access check (a revocation committed
   * between the request's check and the subscription published its event to
   * no one), then `policy.start`.
   */
  open(subscribe: (listener: (event: BusEvent) => void) => () => void, policy: StreamPolicy): void {
    this.#policy = policy;
    this.write('retry: 2000\n\n');
    this.#unsubscribe = subscribe((event) => this.#receive(event));
    if (this.#closed) this.#unsubscribe();
    this.enqueue(() => this.#verify());
    this.enqueue(() => policy.start(this));
  }

  #policy: StreamPolicy | null = null;

  /** Queues bytes for the client (nothing once closed). */
  write(text: string | Uint8Array): void {
    if (this.#closed) return;
    // An event frame (a message is bytes framed once for all streams); not a ping, nor `retry:`.
    if (typeof text !== 'string' || (!text.startsWith(':') && !text.startsWith('retry:'))) this.#options.note?.('event');
    if (this.#sink !== null) return this.#sink.write(text);
    this.#controller.enqueue(typeof text === 'string' ? encoder.encode(text) : text);
  }

  /** Resolves once the client has taken enough that the queue is below its bound (for a replay, page by page). */
  room(): Promise<void> {
    if (this.#closed || this.#queued() < this.#bound) return Promise.resolve();
    return new Promise((resolve) => (this.#roomWaiter = resolve));
  }

  /**
   * Runs a task after the ones before it; while one that returned a promise
   * is pending, later ones wait (bounded by {@link MAX_HELD_TASKS}). A task
   * that fails drops the connection: the client reconnects and catches up.
   */
  enqueue(task: Task): void {
    if (this.#closed) return;
    if (this.#busy || this.#held.length > 0) {
      if (this.#held.length >= MAX_HELD_TASKS) return this.drop('too many events held back while reading the store or checking access');
      this.#held.push(task);
      return;
    }
    this.#run(task);
  }

  /**
   * Sends the closing event (`inbox.deleted`, `inbox.expired` or
   * `access.revoked`, its data from the policy) and ends the stream.
   */
  end(end: AccessEnd): void {
    if (this.#closed) return;
    this.write(formatEvent(end.event, this.#policy?.endData(end) ?? {}));
    this.#cleanup();
    this.#controller.close();
  }

  /**
   * Hands the stream over to another node (a drain): `retry: <retryMs>` and
   * `event: handover`, then it still delivers for up to `graceMs` and ends
   * cleanly. inboxkit's client opens its next connection on the event and
   * leaves this one once the next is live (never without a live one); any
   * other client ignores the event and reconnects `retryMs` after the end.
   */
  handOver(retryMs: number, graceMs: number): void {
    if (this.#closed) return;
    // One frame starting with `retry:`: the hand-over is not counted as an event sent.
    this.write(`retry: ${Math.max(0, Math.round(retryMs))}\n\n${formatEvent('handover', {})}`);
    const end = () => {
      if (this.#closed) return;
      this.#cleanup();
      this.#controller.close();
    };
    this.#handOverTimer = this.#timers.setTimeout(end, Math.max(0, graceMs));
  }

  /**
   * Cuts the connection and discards what is queued, saying why in the log.
   * Under @hono/node-server the socket is destroyed directly (the server then
   * cancels the body); elsewhere the body stream is errored.
   */
  drop(reason: string, error?: unknown): void {
    if (this.#closed) return;
    const { logger, label, logFields, maxBufferedBytes } = this.#options;
    logger.info({ ...logFields, err: error, maxBufferedBytes }, `${label}: ${reason}, disconnecting (the client reconnects)`);
    this.#cleanup();
    if (typeof this.#options.outgoing?.destroy === 'function') this.#options.outgoing.destroy();
    else this.#controller.error(new Error(`inboxkit ${label}: ${reason}`));
  }

  #receive(event: BusEvent): void {
    if (this.#closed) return;
    const { access } = this.#options;
    if (event.type === 'access.revoked') {
      if (access.concerns(event)) this.enqueue(() => this.#verify(event.reason));
      return;
    }
    if ((event.type === 'inbox.deleted' || event.type === 'inbox.expired') && event.inboxId === access.inboxId) {
      this.enqueue(() => this.end({ event: event.type }));
      return;
    }
    this.#policy?.noticed?.(event);
    this.enqueue(() => this.#policy?.handle(event, this));
  }

  #run(task: Task): void {
    let result: void | Promise<void>;
    try {
      result = task();
    } catch (error) {
      return this.#failed(error);
    }
    if (result instanceof Promise) {
      this.#busy = true;
      result.then(
        () => {
          this.#busy = false;
          this.#checkOverflow();
          this.#drain();
        },
        (error: unknown) => {
          this.#busy = false;
          this.#failed(error);
        },
      );
      return;
    }
    this.#checkOverflow();
  }

  #drain(): void {
    while (!this.#busy && !this.#closed && this.#held.length > 0) this.#run(this.#held.shift()!);
  }

  #failed(error: unknown): void {
    this.#options.logger.error({ ...this.#options.logFields, err: error }, `${this.#options.label}: delivery failed`);
    this.drop('delivery failed', error);
  }

  async #verify(hint?: AccessRevokedReason): Promise<void> {
    const ended = await this.#options.access.check(hint);
    if (ended) this.end(ended);
  }

  /**
   * A timer at the moment access ends by itself, so the stream ends when HTTP
   * starts refusing, not at the next sweep. The clock may be injected: the
   * timer checks it and re-arms while access holds.
   */
  #armDeadline(): void {
    const { access } = this.#options;
    if (access.deadline === null || this.#closed) return;
    const rest = access.deadline - access.now();
    // Already due but still granted (a clock that moved back): look again in a second, never in a hot loop.
    const delay = rest > 0 ? Math.min(MAX_TIMER_MS, rest) : this.#deadlineArmed ? 1000 : 0;
    this.#deadlineArmed = true;
    this.#deadline = this.#timers.setTimeout(() => {
      this.#deadline = null;
      this.enqueue(async () => {
        const ended = await access.check();
        if (ended) this.end(ended);
        else this.#armDeadline();
      });
    }, delay);
  }

  /** After a task or a ping: a queue past the bound means the client is too slow. */
  #checkOverflow(): void {
    if (this.#closed || this.#queued() <= this.#bound) return;
    this.#options.note?.('slow_client_dropped');
    this.drop('client too slow');
  }

  /** Bytes written and not yet taken by the client's socket (as far as this process can see). */
  #queued(): number {
    return this.#sink === null ? -(this.#controller.desiredSize ?? 0) : this.#sink.queued();
  }

  /**
   * Called from `pull`, when the adapter waits for the body: the bytes
   * enqueued so far are written. Once its headers are written too, the
   * connection writes to the socket itself.
   */
  #goDirect(): void {
    const { outgoing } = this.#options;
    if (this.#sink !== null || this.#closed || outgoing === undefined) return;
    this.#sink = socketSinkOf(outgoing, this.#options.framing ?? createChunkFraming());
    if (this.#sink !== null) this.#stopDrain = this.#sink.onDrain(() => this.#wakeRoom());
  }

  #wakeRoom(): void {
    this.#roomWaiter?.();
    this.#roomWaiter = null;
  }

  #cleanup(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#held.length = 0;
    this.#unsubscribe();
    this.#timers.clearInterval(this.#ping);
    if (this.#deadline !== null) this.#timers.clearTimeout(this.#deadline);
    this.#deadline = null;
    if (this.#handOverTimer !== null) this.#timers.clearTimeout(this.#handOverTimer);
    this.#handOverTimer = null;
    this.#stopDrain();
    this.#wakeRoom();
    this.#options.onClose?.();
  }
}
