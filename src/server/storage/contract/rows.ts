/**
 * Reading rows into records, the same for every SQL dialect: column readers,
 * a row mapper declared field by field, and keyset pages. What differs by
 * dialect (booleans, binary columns) stays in each dialect's `database.ts`.
 *
 * @packageDocumentation
 */
import type { StorePage } from './types.ts';

/** A row as a driver returns it: column name to value. */
export type Row = Record<string, unknown>;

/** A TEXT column that may be NULL. */
export function textOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** An INTEGER (or BIGINT) column that may be NULL. */
export function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** A TEXT column holding JSON. */
export function json<T>(value: unknown): T {
  return JSON.parse(String(value)) as T;
}

/** A row mapped to a record, or null when there is no row. */
export function mapRow<T>(row: Row | undefined, map: (row: Row) => T): T | null {
  return row ? map(row) : null;
}

/**
 * A page from `limit + 1` rows read in list order: the first `limit` mapped, and
 * the cursor of the next page when there was one more row.
 *
 * @param cursorOf - The cursor of the last item of the page.
 */
export function keysetPage<T>(rows: Row[], limit: number, map: (row: Row) => T, cursorOf: (row: Row) => string): StorePage<T> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(map), nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}

/** Reads one column's value into a record field. */
/** Reads one column's value. */
export type ColumnReader<V> = (value: unknown) => V;

/**
 * A row-to-record mapper declared field by field: each field names its reader,
 * and its column is the field's name in snake_case unless given as `[column, reader]`.
 *
 * @example
 * ```ts
 * const toUser = rowMapper<UserRecord>({ id: text, email: text, planId: text, createdAt: num });
 * ```
 */
export function rowMapper<T>(fields: { [K in keyof T]: ColumnReader<T[K]> | [string, ColumnReader<T[K]>] }): (row: Row) => T {
  const columns = Object.entries(fields as Record<string, ColumnReader<unknown> | [string, ColumnReader<unknown>]>).map(([field, spec]) =>
    Array.isArray(spec) ? ([field, spec[0], spec[1]] as const) : ([field, field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), spec] as const),
  );
  return (row) => {
    const record: Record<string, unknown> = {};
    for (const [field, column, read] of columns) record[field] = read(row[column]);
    return record as T;
  };
}

/** A TEXT column. */
export const text: ColumnReader<string> = (value) => String(value);

/** An INTEGER (or BIGINT) column. */
export const num: ColumnReader<number> = (value) => Number(value);
