/**
 * What the service says about a PostgreSQL URL before (or without) loading the
 * driver: kept apart from database.ts so that printing a URL does not load `pg`.
 *
 * @packageDocumentation
 */

/** A connection string with its password replaced by `***`, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}

/** Whether a database is given as a PostgreSQL URL (`postgres://`, `postgresql://`); anything else is a SQLite file path. */
export function isDatabaseUrl(database: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(database);
}
