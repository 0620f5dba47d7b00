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
export { startServer } from './start.ts';
export type { StartServerOptions, RunningServer } from './start.ts';
export { createApp } from './app.ts';
export type { AppOptions } from './app.ts';
export type { AppMount, MountInfo } from './http/mount.ts';
export type { ConnectionTimers } from './streams/connection.ts';
export { createSqliteStore } from './storage/sqlite.ts';
export type { SqliteStoreOptions } from './storage/sqlite.ts';
export { createPostgresStore } from './storage/postgres.ts';
export { redactUrl } from './storage/postgres/database.ts';
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
export type { StreamCaps } from './auth/caps.ts';
export { createServerContext } from './context/context.ts';
export type { ServerContext, ServerContextOptions, AppEnv } from './context/context.ts';
export type { PlanId, PlanOptions } from './auth/plans.ts';
export { hashSecret, newApiKey, newOperatorToken } from './auth/secrets.ts';
export { createEventBus } from './events/bus.ts';
export type { EventBus, BusEvent } from './events/types.ts';
export { createPostgresEventBus } from './events/postgres-bus.ts';
export type { PostgresEventBus, PostgresEventBusOptions, PostgresBusLogger } from './events/postgres-bus.ts';
export type { Store } from './storage/contract/types.ts';
