/**
 * The PostgreSQL plumbing every aggregate shares: queries on a `pg` pool with
 * driver failures turned into {@link StoreUnavailableError} when the server
 * cannot be reached, one transaction helper, the numbered migrations applied
 * under an advisory lock (several nodes starting together migrate once), and
 * the column readers.
 *
 * @packageDocumentation
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';
import { StoreUnavailableError } from '../contract/errors.ts';

/** A result row, column name to value. */
export type Row = QueryResultRow;

/** What an aggregate's queries run on: the pool, or one client inside a transaction. */
export interface Sql {
  /** The first row of a query, or undefined. */
  get(sql: string, ...params: unknown[]): Promise<Row | undefined>;
  /** Every row of a query. */
  all(sql: string, ...params: unknown[]): Promise<Row[]>;
  /** Runs a statement; `changes` is the number of rows it touched. */
  run(sql: string, ...params: unknown[]): Promise<{ changes: number }>;
}

/** The pool's {@link Sql}, plus transactions and the clock. */
export interface PgSql extends Sql {
  /**
   * Runs `fn` in one transaction on one connection (READ COMMITTED); rolls back if it throws.
   * With `check`, a COMMIT whose answer is lost with the connection (PostgreSQL restarting
   * at that moment) is not taken as failed: `check` asks the database whether it committed.
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>, check?: CommitCheck<T>): Promise<T>;
  /** The store's clock, in epoch milliseconds. */
  now(): number;
  /** The id of this store instance (a node), carried by the notifications it sends. */
  readonly nodeId: string;
}

/**
 * How a transaction whose COMMIT went unanswered finds out whether it
 * committed. The COMMIT may have reached the server and been applied before
 * the connection ended, or not: a writer that reports failure in that case
 * invites its caller to retry, and a retry of something that did commit
 * (a sender's message) stores it twice.
 */
export interface CommitCheck<T> {
  /** Whether what `fn` wrote (its `result`) is in the database, asked on the pool. */
  committed(result: T, sql: Sql): Promise<boolean>;
  /** How long to keep asking while the database cannot be reached, in ms; then the transaction fails as unreachable. */
  withinMs: number;
}

/** The pause between two questions of a {@link CommitCheck} while the database is unreachable, in ms. */
const COMMIT_CHECK_PAUSE_MS = 250;

/** Socket-level codes that mean "the server is not there (any more)". */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * Whether a driver error means the database cannot be reached right now: a
 * socket error, a connection exception (SQLSTATE class 08), the server shutting
 * down or starting (57P01–57P03), too many connections (53300), or `pg`'s own
 * "connection terminated" and pool timeout errors.
 */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNREACHABLE_CODES.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  }
  return /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Client was closed|Connection ended|Cannot use a pool after calling end/i.test(
    error.message,
  );
}

/** A driver error as the store throws it: unreachable ones become {@link StoreUnavailableError}. */
export function storeError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isUnreachable(error)) return error;
  return new StoreUnavailableError(`inboxkit: the PostgreSQL database is unreachable (${(error as Error).message}); try again later.`, { cause: error });
}

/** `pg`'s BIGINT (int8) comes as text; every BIGINT here is an epoch-ms time, a seq or an id counter that fits a double. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export { redactUrl } from './url.ts';

/** Options of {@link createPool}. */
export interface PoolOptions {
  url: string;
  /** Most connections of this node. */
  max: number;
  /** How long a query waits for a free connection (and a new connection to open) before it fails as unreachable, in ms. */
  connectionTimeoutMs: number;
  /** Told about a pooled connection that failed while idle (the pool drops it). */
  onIdleError: (error: Error) => void;
}

/** A `pg` pool with this module's type parsers, that never throws from an idle connection's failure. */
export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max,
    connectionTimeoutMillis: options.connectionTimeoutMs,
    idleTimeoutMillis: 30_000,
    types,
    application_name: 'inboxkit',
  });
  pool.on('error', options.onIdleError);
  return pool;
}

/** Options of a dedicated client (the event bus's LISTEN connection). */
export function clientConfig(url: string, connectionTimeoutMs: number): pg.ClientConfig {
  return { connectionString: url, connectionTimeoutMillis: connectionTimeoutMs, types, application_name: 'inboxkit-listen' };
}

/** The private-use character that escapes what PostgreSQL's text cannot hold. */
const ESCAPE = '\uE000';

/**
 * A string as stored in a PostgreSQL text column. PostgreSQL's text cannot
 * hold U+0000, which mail (and SQLite) can: U+0000 goes in as U+E000 "0", and
 * U+E000 itself as U+E000 U+E000, so {@link decodeText} restores every string
 * exactly. Applied to every query parameter and result, equality, `lower()`
 * and LIKE patterns see the same encoding on both sides.
 */
export function encodeText(value: string): string {
  if (!value.includes('\0') && !value.includes(ESCAPE)) return value;
  return value.replace(/[\0\uE000]/g, (ch) => (ch === '\0' ? `${ESCAPE}0` : `${ESCAPE}${ESCAPE}`));
}

/** The string {@link encodeText} stored. */
export function decodeText(value: string): string {
  if (!value.includes(ESCAPE)) return value;
  return value.replace(/\uE000([0\uE000])/g, (_, ch: string) => (ch === '0' ? '\0' : ESCAPE));
}

function decodeRow(row: Row): Row {
  for (const key of Object.keys(row)) {
    const value: unknown = row[key];
    if (typeof value === 'string' && value.includes(ESCAPE)) row[key] = decodeText(value);
  }
  return row;
}

function sqlOn(run: (text: string, params: unknown[]) => Promise<pg.QueryResult>): Sql {
  const query = async (text: string, params: unknown[]) => {
    try {
      const result = await run(text, params.map((p) => (typeof p === 'string' ? encodeText(p) : p)));
      for (const row of result.rows) decodeRow(row);
      return result;
    } catch (error) {
      throw storeError(error);
    }
  };
  return {
    get: async (text, ...params) => (await query(text, params)).rows[0],
    all: async (text, ...params) => (await query(text, params)).rows,
    run: async (text, ...params) => ({ changes: (await query(text, params)).rowCount ?? 0 }),
  };
}

/** Wraps a pool in the {@link PgSql} helpers. */
export function createSql(pool: pg.Pool, now: () => number, nodeId: string): PgSql {
  return {
    ...sqlOn((text, params) => pool.query(text, params)),
    async transaction(fn, check) {
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw storeError(error);
      }
      let broken: unknown = null;
      // A connection the server ends while it is checked out (PostgreSQL restarting) emits
      // 'error' between queries; with no listener that would end the process.
      const onError = (error: Error) => void (broken = error);
      client.on('error', onError);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        client.off('error', onError);
        // A connection that failed mid-transaction is not given back to the pool.
        client.release(broken instanceof Error ? broken : undefined);
      };
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        await client.query('BEGIN');
        result = await fn(sqlOn((text, params) => client.query(text, params)));
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError;
        }
        release();
        throw storeError(error);
      }
      try {
        await client.query('COMMIT');
      } catch (error) {
        // Refused by the server (the transaction is rolled back), or unanswered: the connection
        // ended after the COMMIT was sent, and whether it was applied is unknown.
        const unanswered = isUnreachable(error);
        if (unanswered) broken = error;
        release();
        if (!unanswered || !check) throw storeError(error);
        if (await committedAfterAll(check, result, pool)) return result;
        throw storeError(error);
      }
      release();
      return result;
    },
    now,
    nodeId,
  };
}

/**
 * Asks `check` whether an unanswered COMMIT was applied, again every
 * {@link COMMIT_CHECK_PAUSE_MS} while the database cannot be reached, for at
 * most `check.withinMs`. False when it was not applied, or when no answer came
 * in time (the caller then fails as it would have, and may retry).
 */
async function committedAfterAll<T>(check: CommitCheck<T>, result: T, pool: pg.Pool): Promise<boolean> {
  const sql = sqlOn((text, params) => pool.query(text, params));
  const until = performance.now() + check.withinMs;
  for (;;) {
    try {
      return await check.committed(result, sql);
    } catch (error) {
      // Not while the store is closing: its pool will not answer again.
      if (!(error instanceof StoreUnavailableError) || pool.ended || performance.now() + COMMIT_CHECK_PAUSE_MS > until) return false;
      await new Promise((resolve) => setTimeout(resolve, COMMIT_CHECK_PAUSE_MS));
    }
  }
}

/** The key of the advisory lock held while migrating (any constant; "inboxkit" in ASCII). */
const MIGRATION_LOCK = 0x696e626f78;

/**
 * Applies the numbered migrations the database has not seen yet, each in its
 * own transaction with its row in `inboxkit_migrations`. A session advisory
 * lock makes nodes that start together wait for the first to finish; the
 * others then find nothing left to do.
 */
export async function migrate(pool: pg.Pool, dir: URL | string): Promise<void> {
  const files = readdirSync(dir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS inboxkit_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
      const done = new Set((await client.query('SELECT version FROM inboxkit_migrations')).rows.map((r: Row) => Number(r.version)));
      for (const file of files) {
        const version = Number.parseInt(file, 10);
        if (done.has(version)) continue;
        const text = readFileSync(typeof dir === 'string' ? `${dir}/${file}` : new URL(file, dir), 'utf8');
        try {
          await client.query('BEGIN');
          await client.query(text);
          await client.query('INSERT INTO inboxkit_migrations (version, name) VALUES ($1, $2)', [version, file]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw new Error(`inboxkit: migration ${file} failed: ${(error as Error).message}`, { cause: error });
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch((error: Error) => (broken = error));
    }
  } finally {
    client.release(broken);
  }
}

export { textOrNull, numberOrNull, json, mapRow, keysetPage, rowMapper, text, num } from '../contract/rows.ts';

/** A BOOLEAN column. */
export function flag(value: unknown): boolean {
  return value === true;
}

/** A BYTEA column (empty when NULL), as a plain Uint8Array view. */
export function bytes(value: unknown): Uint8Array {
  return value instanceof Uint8Array ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new Uint8Array(0);
}
