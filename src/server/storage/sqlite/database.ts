/**
 * The SQLite plumbing every aggregate shares: cached prepared statements, one
 * write transaction helper, the numbered migrations, and the column readers
 * that turn SQLite values into record fields.
 *
 * @packageDocumentation
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';

/** A result row, column name to value. */
export type Row = Record<string, SQLInputValue | undefined>;

/** What an aggregate's queries run on. */
export interface Sql {
  /** The first row of a query, or undefined. */
  get(sql: string, ...params: SQLInputValue[]): Row | undefined;
  /** Every row of a query. */
  all(sql: string, ...params: SQLInputValue[]): Row[];
  /** Runs a statement; `changes` is the number of rows it touched. */
  run(sql: string, ...params: SQLInputValue[]): { changes: number | bigint };
  /** Runs `fn` in one write transaction (node:sqlite is synchronous: nothing interleaves). */
  transaction<T>(fn: () => T): T;
  /** The store's clock, in epoch milliseconds. */
  now(): number;
}

/** Wraps an open database in the {@link Sql} helpers, with a statement cache released by `clear`. */
export function createSql(db: DatabaseSync, now: () => number): Sql & { clear(): void } {
  const cache = new Map<string, StatementSync>();
  const stmt = (sql: string): StatementSync => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
  return {
    get: (sql, ...params) => stmt(sql).get(...params) as Row | undefined,
    all: (sql, ...params) => stmt(sql).all(...params) as Row[],
    run: (sql, ...params) => stmt(sql).run(...params),
    transaction(fn) {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = fn();
        db.exec('COMMIT');
        return result;
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    now,
    clear: () => cache.clear(),
  };
}

/** Applies the numbered migrations the database has not seen yet. */
export function migrate(db: DatabaseSync, dir: URL | string): void {
  const files = readdirSync(dir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
  const current = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
  for (const file of files) {
    const version = Number.parseInt(file, 10);
    if (version <= current) continue;
    const sql = readFileSync(typeof dir === 'string' ? `${dir}/${file}` : new URL(file, dir), 'utf8');
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(sql);
      db.exec(`PRAGMA user_version = ${version}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw new Error(`inboxkit: migration ${file} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

export { newId, domainId } from '../contract/ids.ts';

export { textOrNull, numberOrNull, json, mapRow, keysetPage, rowMapper, text, num } from '../contract/rows.ts';

/** A 0/1 INTEGER column as a boolean. */
export function flag(value: unknown): boolean {
  return value === 1 || value === 1n;
}

/** A BLOB column (empty when NULL). */
export function bytes(value: unknown): Uint8Array {
  return value instanceof Uint8Array ? value : new Uint8Array(0);
}
