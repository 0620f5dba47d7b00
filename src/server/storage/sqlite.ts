/**
 * The SQLite store, on Node's built-in `node:sqlite` (no native addon), put
 * together from one query module per aggregate in `./sqlite/` (domains,
 * credentials, inboxes, messages, rate limits): the shape `postgres.ts` mirrors.
 *
 * In memory by default; with a file path, the database runs in WAL mode with
 * `synchronous=FULL`: every commit is fsynced to the WAL before it returns, so a
 * message acknowledged with SMTP 250 survives a SIGKILL of the server and also a
 * power cut or kernel crash (NORMAL would already survive SIGKILL, since the WAL
 * write reaches the OS before the commit returns, but not a power cut; one fsync
 * per received message is cheap next to an SMTP round trip).
 *
 * Migrations are the numbered `.sql` files in `./migrations/sqlite/`, applied in order
 * at open, each in a transaction that also bumps `PRAGMA user_version`.
 *
 * @packageDocumentation
 */
import type { Store } from './contract/types.ts';
import { createSqliteCapacity } from './sqlite/capacity.ts';
import { createSqliteFaults } from './sqlite/faults.ts';
import { createSqliteSmsVerifications } from './sqlite/sms-verifications.ts';
import { createSqliteEmailTemplates } from './sqlite/email-templates.ts';
import { createSqliteIdempotency } from './sqlite/idempotency.ts';
import { createSqliteCredentials } from './sqlite/credentials.ts';
import { createSql, migrate } from './sqlite/database.ts';
import { secureDatabaseFile } from './sqlite/file-access.ts';
import { createSqliteDomains } from './sqlite/domains.ts';
import { createSqliteInboxes } from './sqlite/inboxes.ts';
import { createSqliteMessages } from './sqlite/messages.ts';
import { createSqliteRetention } from './sqlite/retention.ts';
import { createSqliteRateLimits } from './sqlite/ratelimits.ts';

/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * Database file; created when missing. Omit (or `null`, or `':memory:'`) for an in-memory database.
   * @defaultValue `null`
   */
  path?: string | null;
  /**
   * Folder of the numbered `.sql` migrations.
   * @defaultValue the `migrations/sqlite` folder next to this module
   */
  migrationsDir?: URL | string;
  /**
   * The clock of the times the store sets itself (a user's or an API key's
   * creation), in epoch milliseconds.
   * @defaultValue `Date.now`
   */
  now?: () => number;
}

/**
 * Opens (and migrates) a SQLite store. A database file is created 0600 (an
 * existing one the service user owns is taken down to 0600, with its `-wal`
 * and `-shm`), and a folder other users may write to is refused.
 *
 * @example
 * ```ts
 * const store = createSqliteStore();                         // in memory
 * const durable = createSqliteStore({ path: './inboxkit.db' }); // a file, WAL
 * ```
 */
export function createSqliteStore(options: SqliteStoreOptions = {}): Store {
  const path = options.path && options.path !== ':memory:' ? options.path : ':memory:';
  // Loaded here, not imported at the top: a static import of node:sqlite fails at link time on a
  // Node.js without it, before the entry point's version check could say which Node.js is needed.
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  // The file (and so its -wal and -shm, which SQLite gives the same mode) is the service user's alone.
  if (path !== ':memory:') secureDatabaseFile(path);
  const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
  if (path !== ':memory:') {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
    db.exec('PRAGMA busy_timeout = 5000');
  }
  db.exec('PRAGMA foreign_keys = ON');
  migrate(db, options.migrationsDir ?? new URL('./migrations/sqlite/', import.meta.url));

  const sql = createSql(db, options.now ?? Date.now);
  let closed = false;
  return {
    ...createSqliteDomains(sql),
    ...createSqliteCredentials(sql),
    ...createSqliteInboxes(sql),
    ...createSqliteMessages(sql),
    ...createSqliteRateLimits(),
    ...createSqliteCapacity(sql),
    ...createSqliteFaults(sql),
    ...createSqliteRetention(sql),
    ...createSqliteSmsVerifications(sql),
    ...createSqliteEmailTemplates(sql),
    ...createSqliteIdempotency(sql),
    async close() {
      if (closed) return;
      closed = true;
      sql.clear();
      db.close();
    },
  };
}
