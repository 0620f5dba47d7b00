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
export { startServer } from './start.ts';
export type { StartServerOptions, RunningServer } from './start.ts';
export { createApp } from './app.ts';
export type { AppOptions } from './app.ts';
export { createSqliteStore } from './storage/sqlite.ts';
export type { SqliteStoreOptions } from './storage/sqlite.ts';
export { resolveConfig, hashSecret, DEFAULT_DOMAIN } from './context.ts';
export type {
  ServerContext,
  ResolvedConfig,
  ResolvedSmtpConfig,
  ResolvedStreamConfig,
  ResolvedForwardingConfig,
  TlsKeyPair,
  ConfigOptions,
  PlanOptions,
  PlanId,
  AppEnv,
} from './context.ts';
export { createEventBus } from './events/bus.ts';
export type { EventBus, InboxEvent } from './events/types.ts';
export type { Store } from './storage/types.ts';
export { newApiKey } from './auth/secrets.ts';
