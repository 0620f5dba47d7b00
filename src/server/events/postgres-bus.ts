/**
 * The event bus of several nodes on one PostgreSQL database, on LISTEN/NOTIFY.
 *
 * Each node delivers its own events to its own subscribers at once (an
 * in-process bus inside), and tells the other nodes through one channel with
 * small JSON notifications: the event's type and ids, never its data. A
 * message event is notified by the store itself, inside the transaction that
 * stores the message (`storage/postgres/notify.ts`), so the other nodes hear of
 * it exactly when it commits, even if this node dies right after; every other
 * event (any kind, present or future) is notified here. A node that receives a
 * message notification reads the whole message from the table by its id (once
 * per node, shared by its subscribers), so its event carries the whole message
 * as on the node that stored it.
 *
 * After the LISTEN connection is lost (a database restart, a network cut) the
 * bus reconnects with backoff and publishes `resync` for every inbox that has
 * subscribers: they catch up from the store after the last seq they have — the
 * same code path as an event stream's `Last-Event-ID` replay — so nothing that
 * committed meanwhile is missed, and seq de-duplication means nothing repeats.
 * `subscribeAll` listeners (the caller-wide `GET /me/events`) hear every
 * notification while any is subscribed, and after a reconnect get one `resync`
 * whose inboxId is {@link ALL_INBOXES}: any inbox may have missed events, so
 * they read the store again (they also see the per-inbox resyncs).
 *
 * @packageDocumentation
 */
import type pg from 'pg';
import { redactUrl } from '../storage/postgres/database.ts';
import { EVENTS_CHANNEL } from '../storage/postgres/notify.ts';
import type { EventNotification } from '../storage/postgres/notify.ts';
import type { MessageStore } from '../storage/contract/types.ts';
import { createEventBus } from './bus.ts';
import { createListenConnection } from './listen-connection.ts';
import type { BusEvent, EventBus } from './types.ts';

/** The logging the bus needs (a pino logger fits). */
export interface PostgresBusLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link createPostgresEventBus}. */
export interface PostgresEventBusOptions {
  /** The node's PostgreSQL store: its URL and node id, and where messages are read. */
  store: Pick<MessageStore, 'findMessage'> & { readonly url: string; readonly nodeId: string };
  /**
   * Where the bus reports a lost connection, a reconnect, or a failing listener.
   * @defaultValue silent
   */
  logger?: PostgresBusLogger;
  /**
   * Waits between reconnect attempts, in ms; the last one repeats.
   * @defaultValue `[100, 250, 500, 1000, 2000]`
   */
  reconnectDelaysMs?: number[];
  /**
   * How long connecting may take, in ms.
   * @defaultValue `5000`
   */
  connectionTimeoutMs?: number;
}

/** A LISTEN/NOTIFY event bus; `close()` ends its connection. */
export interface PostgresEventBus extends EventBus {
  /** Whether the LISTEN connection is up (false while reconnecting). */
  readonly connected: boolean;
  /**
   * Sends the notifications still waiting (for at most the connection timeout, when the
   * connection is down), then stops listening and closes the connection (idempotent).
   */
  close(): Promise<void>;
}

/** NOTIFY payloads must stay under 8000 bytes; ids never come close. */
const MAX_PAYLOAD = 7900;

/** Notifications kept while the connection is down, sent once it is back. */
const MAX_OUTBOX = 10_000;

/**
 * The inboxId of a `resync` that concerns every inbox (published to
 * `subscribeAll` listeners after the bus reconnected). No inbox has this id.
 */
export const ALL_INBOXES = '*';

const silent: PostgresBusLogger = { info() {}, warn() {}, error() {} };

/**
 * The notifications of this node waiting to be sent: kept while the
 * connection is down (up to {@link MAX_OUTBOX}), sent in order, one batch in
 * flight at a time (a pg client must not run two queries at once).
 */
function createOutbox(current: () => pg.Client | null) {
  const waiting: string[] = [];
  let flushing = false;
  /** Who waits for everything to be sent (`drained`). */
  const idle: Array<() => void> = [];
  const empty = () => !flushing && waiting.length === 0;
  const outbox = {
    push(payload: string): void {
      if (waiting.length < MAX_OUTBOX) waiting.push(payload);
    },
    /** Resolves true once nothing waits to be sent, or false after `timeoutMs` (the connection is down). */
    drained(timeoutMs: number): Promise<boolean> {
      if (empty()) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        idle.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    flush(): void {
      const client = current();
      if (empty()) for (const done of idle.splice(0)) done();
      if (!client || flushing || waiting.length === 0) return;
      flushing = true;
      const batch = waiting.splice(0);
      client.query('SELECT pg_notify($1, p) FROM unnest($2::text[]) WITH ORDINALITY AS t(p, i) ORDER BY i', [EVENTS_CHANNEL, batch]).then(
        () => {
          flushing = false;
          outbox.flush();
        },
        () => {
          flushing = false;
          // Lost again: kept, first, for the next connection (which flushes once it listens).
          waiting.unshift(...batch.slice(0, Math.max(0, MAX_OUTBOX - waiting.length)));
          if (current() !== client) outbox.flush();
        },
      );
    },
  };
  return outbox;
}

/** The notification of a local event for the other nodes, or null (logged) when it is too large. */
function encodeNotification(nodeId: string, event: BusEvent, logger: PostgresBusLogger): string | null {
  const note: EventNotification = { n: nodeId, e: event };
  const payload = JSON.stringify(note);
  if (payload.length <= MAX_PAYLOAD) return payload;
  logger.error({ event: event.type, bytes: payload.length }, 'event bus: event too large to notify; other nodes will not see it');
  return null;
}

/**
 * The node's side of the bus: its in-process bus, which inboxes (or all) have
 * local subscribers, and reading an incoming notification into a local event.
 */
function createLocalSide(store: PostgresEventBusOptions['store'], logger: PostgresBusLogger) {
  const local = createEventBus({ onListenerError: (err, event) => logger.error({ err, event: event.type }, 'event listener failed') });
  /** Local subscriptions per inbox: notifications for other inboxes are not read. */
  const subscribed = new Map<string, number>();
  /** How many `subscribeAll` listeners there are: while any, every notification is read. */
  let everyInbox = 0;

  const receive = async (payload: string): Promise<void> => {
    let note: EventNotification;
    try {
      note = JSON.parse(payload) as EventNotification;
    } catch {
      logger.warn({ payload: payload.slice(0, 200) }, 'event bus: a notification that is not JSON was ignored');
      return;
    }
    if (note.n === store.nodeId || !note.e) return;
    const inboxId = note.e.inboxId;
    // An event of no inbox (a user's revocation) is for the caller-wide listeners alone.
    if (inboxId === null) {
      if (everyInbox > 0) local.publish(note.e as BusEvent);
      return;
    }
    if (typeof inboxId !== 'string' || (everyInbox === 0 && !subscribed.has(inboxId))) return;
    if (!note.m) {
      local.publish(note.e as BusEvent);
      return;
    }
    try {
      const message = await store.findMessage(note.m.id);
      // Gone already (deleted or evicted): there is nothing to deliver.
      if (message && message.inboxId === inboxId && message.seq === note.m.seq) local.publish({ ...note.e, message } as BusEvent);
    } catch (err) {
      // Cannot read it now: the subscribers catch up from the store themselves.
      logger.warn({ err, inboxId }, 'event bus: reading a notified message failed; subscribers resync');
      local.publish({ type: 'resync', inboxId });
    }
  };

  return {
    local,
    receive,
    /** After a reconnect: every local subscriber catches up from the store. */
    resyncAll() {
      for (const inboxId of subscribed.keys()) local.publish({ type: 'resync', inboxId });
      // Reaches only the subscribeAll listeners: no inbox has this id.
      if (everyInbox > 0) local.publish({ type: 'resync', inboxId: ALL_INBOXES });
    },
    subscribe(inboxId: string, listener: (event: BusEvent) => void): () => void {
      subscribed.set(inboxId, (subscribed.get(inboxId) ?? 0) + 1);
      const off = local.subscribe(inboxId, listener);
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        off();
        const left = (subscribed.get(inboxId) ?? 1) - 1;
        if (left > 0) subscribed.set(inboxId, left);
        else subscribed.delete(inboxId);
      };
    },
    subscribeAll(listener: (event: BusEvent) => void): () => void {
      everyInbox += 1;
      const off = local.subscribeAll(listener);
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        off();
        everyInbox -= 1;
      };
    },
  };
}

/**
 * Opens the LISTEN connection and resolves with the bus once it listens.
 *
 * @throws Error naming the URL (without its password) when the first connection fails.
 * @example
 * ```ts
 * const store = await createPostgresStore({ url });
 * const bus = await createPostgresEventBus({ store });
 * const server = await startServer({ store, bus });
 * ```
 */
export async function createPostgresEventBus(options: PostgresEventBusOptions): Promise<PostgresEventBus> {
  const { store } = options;
  const logger = options.logger ?? silent;
  const side = createLocalSide(store, logger);
  /** Incoming notifications are handled one after another, in the order they came. */
  let chain: Promise<void> = Promise.resolve();
  const outbox = createOutbox(() => connection.client);
  const connection = createListenConnection({
    url: store.url,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 5000,
    reconnectDelaysMs: options.reconnectDelaysMs ?? [100, 250, 500, 1000, 2000],
    logger,
    onNotification: (payload) => {
      chain = chain.then(() => side.receive(payload));
    },
    onListening: () => outbox.flush(),
    onReconnected: () => side.resyncAll(),
  });

  try {
    await connection.connect();
  } catch (error) {
    throw new Error(`inboxkit: the event bus cannot listen on the PostgreSQL database ${redactUrl(store.url)}: ${(error as Error).message}.`, { cause: error });
  }

  return {
    get connected() {
      return connection.client !== null;
    },
    mayResync: true,
    publish(event) {
      side.local.publish(event);
      // A message event was notified by the store, in the transaction that stored it.
      if ('message' in event) return;
      const payload = encodeNotification(store.nodeId, event, logger);
      if (payload !== null) outbox.push(payload);
      outbox.flush();
    },
    subscribe: side.subscribe,
    subscribeAll: side.subscribeAll,
    async close() {
      // What this node published last (a revocation, an inbox deleted) still reaches the others.
      await outbox.drained(options.connectionTimeoutMs ?? 5000);
      await connection.close();
    },
  };
}
