/**
 * The one warning the `inboxkit` command keeps quiet: Node.js 22 calls its
 * built-in SQLite module experimental and says so on every start
 * (`ExperimentalWarning: SQLite is an experimental feature and might change at
 * any time`). inboxkit relies only on the part of `node:sqlite` that is stable
 * from 22.13 on and unchanged in 24, where the warning is gone; printed on every
 * run of every test suite it only alarms. Every other warning is printed as
 * Node.js prints it.
 *
 * @packageDocumentation
 */

/** Whether a process warning is Node.js's notice that its SQLite module is experimental. */
export function isSqliteExperimentalWarning(warning: Error): boolean {
  return warning.name === 'ExperimentalWarning' && /\bSQLite\b/.test(warning.message);
}

/**
 * Keeps Node.js's SQLite notice off stderr in this process: Node prints
 * warnings through its own `'warning'` listener, which is replaced by one that
 * hands every other warning to it (and to any listener added before).
 */
export function quietSqliteWarning(target: NodeJS.Process): void {
  const printers = target.listeners('warning');
  target.removeAllListeners('warning');
  target.on('warning', (warning: Error) => {
    if (isSqliteExperimentalWarning(warning)) return;
    for (const print of printers) print.call(target, warning);
  });
}
