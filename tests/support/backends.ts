/**
 * The storage backends the tests run over: SQLite always, PostgreSQL when a
 * server is reachable. This harness is the only test code that reads the
 * environment: `INBOXKIT_TEST_POSTGRES_URL` (set by `.ci/run`, from
 * `tests/support/postgres.sh start`). Without it the PostgreSQL tests are
 * skipped with {@link POSTGRES_SKIP}.
 *
 * Every PostgreSQL test gets a fresh schema of that database (its URL sets
 * `search_path`), so tests running in parallel never see each other's rows.
 *
 * The suites of whole services (server-core, server-mail, adversarial) run on
 * the backend their Playwright project names in `metadata.storageBackend`:
 * the `integration` project on SQLite, `integration-postgres` on PostgreSQL
 * (see playwright.config.ts). Their fixtures ask {@link projectBackend},
 * {@link projectDatabase} or {@link openProjectStore}.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from '@playwright/test';
import pg from 'pg';
import { createEventBus, createPostgresEventBus, createPostgresStore, createSqliteStore } from '../../src/server/index.ts';
import type { EventBus, Store } from '../../src/server/index.ts';

/** The URL of the PostgreSQL test database, or null when there is none. */
export const POSTGRES_URL: string | null = process.env.INBOXKIT_TEST_POSTGRES_URL?.trim() || null;

/** Why the PostgreSQL tests are skipped (shown by the reporter). */
export const POSTGRES_SKIP =
  'no PostgreSQL server to test against: set INBOXKIT_TEST_POSTGRES_URL (tests/support/postgres.sh start prints one; .ci/run does both)';

/** A database for one test: its URL, and `drop()` to remove what the test made. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty schema in the PostgreSQL test database. */
export async function freshPostgres(): Promise<TestDatabase> {
  if (!POSTGRES_URL) throw new Error(POSTGRES_SKIP);
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A storage backend as the contract tests use it. */
export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Why this backend's tests are skipped here, or null when they run. */
  skip: string | null;
  /** Opens a store on a fresh database; `close()` closes it and drops the database. */
  open(options?: { now?: () => number }): Promise<{ store: Store; close(): Promise<void> }>;
}

/** SQLite (in memory) and PostgreSQL (a fresh schema per store). */
export const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    skip: null,
    async open(options = {}) {
      const store = createSqliteStore(options);
      return { store, close: () => store.close() };
    },
  },
  {
    name: 'postgres',
    skip: POSTGRES_URL ? null : POSTGRES_SKIP,
    async open(options = {}) {
      const db = await freshPostgres();
      const store = await createPostgresStore({ url: db.url, ...options });
      return {
        store,
        async close() {
          await store.close();
          await db.drop();
        },
      };
    },
  },
];

/** The name of a storage backend. */
export type BackendName = Backend['name'];

/**
 * The backend the running test's Playwright project asks for
 * (`metadata.storageBackend`; SQLite when unset). Skips the test, saying why,
 * when the project asks for PostgreSQL and none is reachable.
 */
export function projectBackend(): BackendName {
  const asked = (test.info().project.metadata as { storageBackend?: unknown } | undefined)?.storageBackend;
  if (asked !== 'postgres') return 'sqlite';
  test.skip(POSTGRES_URL === null, POSTGRES_SKIP);
  return 'postgres';
}

/** Where a test's service keeps its data: options for `startServer`, and `drop()` once the server closed. */
export interface ProjectDatabase {
  /** `{ db }` with a fresh PostgreSQL schema's URL, or `{}` (SQLite in memory). */
  options: { db?: string };
  drop(): Promise<void>;
}

/** A fresh database on the project's backend, for a test that calls `startServer` itself. */
export async function projectDatabase(): Promise<ProjectDatabase> {
  if (projectBackend() === 'sqlite') return { options: {}, drop: async () => {} };
  const db = await freshPostgres();
  return { options: { db: db.url }, drop: () => db.drop() };
}

/**
 * A store and an event bus on the project's backend, for a test that builds
 * its service from parts: SQLite in memory with the in-process bus, or a
 * fresh PostgreSQL schema with the LISTEN/NOTIFY bus. `close()` closes both
 * and drops the schema.
 */
export async function openProjectStore(options: { now?: () => number } = {}): Promise<{ store: Store; bus: EventBus; close(): Promise<void> }> {
  if (projectBackend() === 'sqlite') {
    const store = createSqliteStore(options);
    return { store, bus: createEventBus(), close: () => store.close() };
  }
  const db = await freshPostgres();
  const store = await createPostgresStore({ url: db.url, ...options });
  const bus = await createPostgresEventBus({ store });
  return {
    store,
    bus,
    async close() {
      await bus.close();
      await store.close();
      await db.drop();
    },
  };
}

const SCRIPT = fileURLToPath(new URL('./postgres.sh', import.meta.url));

/** A PostgreSQL cluster of its own, for a test that restarts the server. */
export interface OwnCluster {
  url: string;
  /** Stops the server (fast shutdown: every connection is cut); `up()` starts it again on the same data. */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Why a test cannot start a cluster of its own (the server binaries of Debian's
 * postgresql package are needed), or null when it can.
 */
export function ownClusterSkip(): string | null {
  if (!POSTGRES_URL) return POSTGRES_SKIP;
  const hasBinaries = existsSync('/usr/lib/postgresql') && readFileSync('/etc/passwd', 'utf8').includes('\npostgres:');
  return hasBinaries ? null : 'restarting PostgreSQL needs a cluster of its own: install Debian\'s postgresql package (tests/support/postgres.sh uses its initdb and pg_ctl)';
}

/** Starts a throwaway cluster through tests/support/postgres.sh, on its own port and state file. */
export async function startOwnCluster(port: number): Promise<OwnCluster> {
  const run = promisify(execFile);
  const env = { ...process.env, INBOXKIT_PG_STATE: `.tmp/postgres-${port}.env` };
  const { stdout } = await run(SCRIPT, ['start', String(port)], { env });
  const url = stdout.trim().split('\n').at(-1) as string;
  return {
    url,
    down: async () => void (await run(SCRIPT, ['down'], { env })),
    up: async () => void (await run(SCRIPT, ['up'], { env })),
    stop: async () => void (await run(SCRIPT, ['stop'], { env })),
  };
}
