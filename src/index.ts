/**
 * inboxkit: test email flows against a local or hosted Disposable Inbox API.
 * The main entry is the typed client; see `inboxkit/playwright` and `inboxkit/server`.
 *
 * @packageDocumentation
 */
export * from './client/index.ts';
