/**
 * `inboxkit/server`: a complete local implementation of the Disposable Inbox
 * API v1, with a real SMTP intake.
 *
 * @example
 * ```ts
 * import { startServer } from 'inboxkit/server';
 *
 * const server = await startServer();
 * // POST `${server.apiUrl}/inboxes`, then send mail to 127.0.0.1:server.smtpPort
 * await server.close();
 * ```
 *
 * @packageDocumentation
 */
// First: fails with one line on an unsupported Node.js, before any dependency loads.
import '../runtime/node-check.ts';
import type { PostgresStore, PostgresStoreOptions } from './storage/postgres.ts';
import type { PostgresEventBus, PostgresEventBusOptions } from './events/postgres-bus.ts';
import type { Store } from './storage/contract/types.ts';
import { createSqliteStore } from './storage/sqlite.ts';
export { startServer } from './start.ts';
export type { StartServerOptions, RunningServer } from './start.ts';
export { createApp } from './app.ts';
export type { AppOptions } from './app.ts';
export type { AppMount, MountInfo, MountCaller } from './http/mount.ts';
export type { ConnectionTimers } from './streams/connection.ts';
export { createSqliteStore } from './storage/sqlite.ts';
export type { SqliteStoreOptions } from './storage/sqlite.ts';
export { isDatabaseUrl, redactUrl } from './storage/postgres/url.ts';
import { isDatabaseUrl } from './storage/postgres/url.ts';
export type { PostgresStore, PostgresStoreOptions } from './storage/postgres.ts';
export { StoreUnavailableError } from './storage/contract/errors.ts';
export { resolveConfig, ConfigError, DEFAULT_DOMAIN } from './context/config.ts';
export type {
  ResolvedConfig,
  ResolvedSmtpConfig,
  ResolvedStreamConfig,
  ResolvedForwardingConfig,
  TlsKeyPair,
  ConfigOptions,
} from './context/config.ts';
export type { BoundsOptions, ResolvedBounds } from './context/bounds.ts';
export type { OperationsOptions, ResolvedOperations } from './context/operations.ts';
export type { StreamCaps } from './auth/caps.ts';
export { createServerContext } from './context/context.ts';
export type { ServerContext, ServerContextOptions, AppEnv } from './context/context.ts';
export type { PlanId, PlanOptions } from './auth/plans.ts';
export { hashSecret, isApiKeyShape, newApiKey, newOperatorToken } from './auth/secrets.ts';
export { createEventBus } from './events/bus.ts';
export type { EventBus, BusEvent } from './events/types.ts';
export type { PostgresEventBus, PostgresEventBusOptions, PostgresBusLogger } from './events/postgres-bus.ts';

// The PostgreSQL store and bus load the driver (`pg`) on their first call, so a
// service on SQLite, and anything importing `inboxkit/server`, does not load it.

/**
 * Connects to PostgreSQL, migrates the database (once, whichever node gets the
 * lock first), and returns the store. Loads the PostgreSQL driver on its first call.
 *
 * @throws Error naming the URL (without its password) when the database cannot be reached or migrated.
 * @example
 * ```ts
 * const store = await createPostgresStore({ url: 'postgres://inboxkit@127.0.0.1:5432/inboxkit' });
 * const server = await startServer({ store, bus: await createPostgresEventBus({ store }) });
 * ```
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const postgres = await import('./storage/postgres.ts');
  return postgres.createPostgresStore(options);
}

/**
 * Opens the store of a database: a PostgreSQL URL (`postgres://`,
 * `postgresql://`; its driver loaded then) or a SQLite file path, the same
 * way `startServer` and `inboxkit serve` open it.
 *
 * @example
 * ```ts
 * const store = await openStore('postgres://inboxkit@127.0.0.1:5432/inboxkit');
 * ```
 */
export async function openStore(database: string, options: { now?: () => number } = {}): Promise<Store> {
  return isDatabaseUrl(database) ? createPostgresStore({ url: database, ...options }) : createSqliteStore({ path: database, ...options });
}

/**
 * Opens the LISTEN connection of a PostgreSQL store and resolves with the
 * event bus once it listens. Loads the PostgreSQL driver on its first call.
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
  const bus = await import('./events/postgres-bus.ts');
  return bus.createPostgresEventBus(options);
}

/**
 * Tells every node that shares a PostgreSQL store that a user's API key was
 * revoked from outside them (as `inboxkit keys revoke` does): the streams
 * opened with the key end at once on every node, with `access.revoked`,
 * instead of at their next keep-alive. Call it after `store.revokeApiKey`
 * committed; it opens the store's event bus for as long as sending takes.
 *
 * @param store - The PostgreSQL store the nodes use.
 * @param userId - The owner of the revoked key (`revokeApiKey`'s answer).
 * @example
 * ```ts
 * const revoked = await store.revokeApiKey(hashSecret(key));
 * if (revoked) await announceApiKeyRevoked(store, revoked.userId);
 * ```
 */
export async function announceApiKeyRevoked(store: PostgresStore, userId: string): Promise<void> {
  const bus = await createPostgresEventBus({ store });
  try {
    const { publishAccessRevoked } = await import('./events/revocations.ts');
    await publishAccessRevoked({ store, bus, now: () => Date.now() }, userId, 'api_key_revoked');
  } finally {
    await bus.close();
  }
}
export type { Store } from './storage/contract/types.ts';
