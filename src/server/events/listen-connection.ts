/**
 * The LISTEN connection of the PostgreSQL event bus: one pg client listening
 * on the events channel, reconnected with backoff when it is lost.
 *
 * @packageDocumentation
 */
import pg from 'pg';
import { clientConfig } from '../storage/postgres/database.ts';
import { EVENTS_CHANNEL } from '../storage/postgres/notify.ts';

/** The logging the connection needs (a pino logger fits). */
export interface ListenLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Options of {@link createListenConnection}. */
export interface ListenConnectionOptions {
  /** The database URL. */
  url: string;
  /** How long connecting may take, in ms. */
  connectionTimeoutMs: number;
  /** Waits between reconnect attempts, in ms; the last one repeats. */
  reconnectDelaysMs: readonly number[];
  /** Where a lost connection and a reconnect are reported. */
  logger: ListenLogger;
  /** Hears each notification on the events channel, in the order they came. */
  onNotification(payload: string): void;
  /** Called each time a connection listens (the first included): what waited to be sent can go now. */
  onListening(): void;
  /** Called after a lost connection is back: what happened meanwhile was not heard. */
  onReconnected(): void;
}

/** A LISTEN connection that comes back after it is lost. */
export interface ListenConnection {
  /** Opens the first connection; rejects when it fails (no retry). */
  connect(): Promise<void>;
  /** The client while it listens, null while reconnecting or closed. */
  readonly client: pg.Client | null;
  /** Stops reconnecting and ends the connection (idempotent). */
  close(): Promise<void>;
}

/** The handlers of one client's events. */
interface ClientEvents {
  notification(payload: string): void;
  lost(client: pg.Client, err?: Error): void;
}

/** One client, connected and listening, its events wired; ended, and the error thrown, when either step fails. */
async function listenOnce(options: ListenConnectionOptions, events: ClientEvents): Promise<pg.Client> {
  const c = new pg.Client({ ...clientConfig(options.url, options.connectionTimeoutMs), keepAlive: true });
  // Before connect(): a failure must never be an unhandled 'error' event.
  c.on('error', (err) => events.lost(c, err));
  c.on('end', () => events.lost(c));
  c.on('notification', (msg) => {
    if (msg.channel !== EVENTS_CHANNEL || msg.payload === undefined) return;
    events.notification(msg.payload);
  });
  try {
    await c.connect();
    await c.query(`LISTEN ${EVENTS_CHANNEL}`);
  } catch (error) {
    c.removeAllListeners('end');
    await c.end().catch(() => {});
    throw error;
  }
  return c;
}

/**
 * The bus's LISTEN connection. After a loss it reconnects on the delays given
 * (the failures are logged on the first attempt and every twentieth), then
 * calls `onReconnected`.
 */
export function createListenConnection(options: ListenConnectionOptions): ListenConnection {
  const { logger, reconnectDelaysMs: delays } = options;
  let client: pg.Client | null = null;
  let closed = false;
  let attempt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;

  const scheduleReconnect = () => {
    if (closed || retryTimer) return;
    const delay = delays[Math.min(attempt, delays.length - 1)] ?? 1000;
    attempt += 1;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      connect().then(
        () => {
          logger.info({ attempts: attempt }, 'event bus: reconnected to PostgreSQL; open streams catch up');
          attempt = 0;
          options.onReconnected();
        },
        (err: unknown) => {
          if (attempt === 1 || attempt % 20 === 0) logger.warn({ err, attempts: attempt }, 'event bus: reconnecting to PostgreSQL failed; retrying');
          scheduleReconnect();
        },
      );
    }, delay);
    retryTimer.unref?.();
  };

  const lost = (c: pg.Client, err?: Error) => {
    if (client !== c) return;
    client = null;
    c.removeAllListeners('notification');
    c.end().catch(() => {});
    if (closed) return;
    logger.warn({ err }, 'event bus: lost the PostgreSQL LISTEN connection; reconnecting');
    scheduleReconnect();
  };

  const connect = async (): Promise<void> => {
    const c = await listenOnce(options, { notification: options.onNotification, lost });
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    options.onListening();
  };

  return {
    connect,
    get client() {
      return client;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const c = client;
      client = null;
      if (c) await c.end().catch(() => {});
    },
  };
}
