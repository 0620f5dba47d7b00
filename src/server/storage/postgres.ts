/**
 * The PostgreSQL store, on `pg` and its pool, put together from one query
 * module per aggregate in `./postgres/` (domains, credentials, inboxes,
 * messages, rate limits), mirroring `sqlite.ts`. Several service nodes can
 * share one database: seqs, connect codes, the expiry sweep, eviction and rate
 * limits are all decided in the database, never in one node's memory.
 *
 * Migrations are the numbered `.sql` files in `./migrations/postgres/`,
 * applied at open under an advisory lock (see `./postgres/database.ts`).
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import type { Store } from './contract/types.ts';
import { createPool, createSql, migrate, redactUrl } from './postgres/database.ts';
import { createPostgresCredentials } from './postgres/credentials.ts';
import { createPostgresDomains } from './postgres/domains.ts';
import { createPostgresInboxes } from './postgres/inboxes.ts';
import { createPostgresMessages } from './postgres/messages.ts';
import { createPostgresRetention } from './postgres/retention.ts';
import { createPostgresRateLimits } from './postgres/ratelimits.ts';
import { createPostgresCapacity } from './postgres/capacity.ts';
import { createPostgresFaults } from './postgres/faults.ts';
import { createPostgresSmsVerifications } from './postgres/sms-verifications.ts';
import { createPostgresEmailTemplates } from './postgres/email-templates.ts';
import { createPostgresIdempotency } from './postgres/idempotency.ts';

/** Options of {@link createPostgresStore}. */
export interface PostgresStoreOptions {
  /** Connection URL, `postgres://user:password@host:port/database` (libpq-style parameters allowed). */
  url: string;
  /**
   * Most connections this node opens.
   * @defaultValue `10`
   */
  maxConnections?: number;
  /**
   * How long a query waits for a connection before it fails with `StoreUnavailableError`, in ms.
   * @defaultValue `5000`
   */
  connectionTimeoutMs?: number;
  /**
   * Folder of the numbered `.sql` migrations.
   * @defaultValue the `migrations/postgres` folder next to this module
   */
  migrationsDir?: URL | string;
  /**
   * The clock of the times the store sets itself, in epoch milliseconds.
   * @defaultValue `Date.now`
   */
  now?: () => number;
  /**
   * Told when a pooled connection fails while idle (the database restarted, the
   * network dropped); the pool replaces it on the next query.
   * @defaultValue ignore it
   */
  onConnectionError?: (error: Error) => void;
}

/** A {@link Store} on PostgreSQL, with what its event bus needs to know. */
export interface PostgresStore extends Store {
  /** The backend's name. */
  readonly kind: 'postgres';
  /** The connection URL (the event bus opens its LISTEN connection there). */
  readonly url: string;
  /** This node's id, carried by the notifications it sends (so it skips its own). */
  readonly nodeId: string;
  /** The pool's connections now: open ones in use, open ones idle, and queries waiting for one (the metrics). */
  poolState(): { busy: number; idle: number; waiting: number };
}

/**
 * Connects to PostgreSQL, migrates the database (once, whichever node gets the
 * lock first), and returns the store.
 *
 * @throws Error naming the URL (without its password) when the database cannot be reached or migrated.
 * @example
 * ```ts
 * const store = await createPostgresStore({ url: 'postgres://inboxkit@127.0.0.1:5432/inboxkit' });
 * const server = await startServer({ store, bus: createPostgresEventBus({ store }) });
 * ```
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const pool = createPool({
    url: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 5000,
    onIdleError: options.onConnectionError ?? (() => {}),
  });
  try {
    await migrate(pool, options.migrationsDir ?? new URL('./migrations/postgres/', import.meta.url));
  } catch (error) {
    await pool.end().catch(() => {});
    const why = (error as Error).message || String(error);
    throw new Error(
      `inboxkit: cannot open the PostgreSQL database ${redactUrl(options.url)}: ${why}. ` +
        'Check that the server runs and accepts this user and database (or give another --db / DATABASE_URL).',
      { cause: error },
    );
  }
  const nodeId = `node_${randomBytes(6).toString('hex')}`;
  const sql = createSql(pool, options.now ?? Date.now, nodeId);
  let closing: Promise<void> | null = null;
  return {
    kind: 'postgres',
    url: options.url,
    nodeId,
    ...createPostgresDomains(sql),
    ...createPostgresCredentials(sql),
    ...createPostgresInboxes(sql),
    ...createPostgresMessages(sql),
    ...createPostgresRateLimits(sql),
    ...createPostgresCapacity(sql),
    ...createPostgresFaults(sql),
    ...createPostgresRetention(sql),
    ...createPostgresSmsVerifications(sql),
    ...createPostgresEmailTemplates(sql),
    ...createPostgresIdempotency(sql),
    poolState: () => ({ busy: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => (closing ??= pool.end()),
  };
}
