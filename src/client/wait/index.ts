/**
 * The waits behind `inbox.waitForMessage()`, `waitForMessages()`,
 * `expectNoMessage()` and `peek()`: race-free (the backlog first, oldest first,
 * then new mail), pushed by the event stream, and polling the message list with
 * backoff when the stream is unavailable.
 *
 * The parts: `spec.ts` (options and their checks), `feed.ts` (the messages, in
 * arrival order), `matcher.ts` (does this message match?), `explain.ts` (the
 * text of a timeout), `run.ts` (one wait, put together). They know the inbox
 * only as a {@link WaitSource}, never as an `InboxHandle`.
 *
 * @packageDocumentation
 */
export { runWait } from './run.ts';
export { WaitState } from './state.ts';
export type { WaitSource } from './source.ts';
export { DEFAULT_POLL_INTERVALS, DEFAULT_WAIT_TIMEOUT, absenceSpec, peekSpec, waitSpec } from './spec.ts';
export type { ExpectNoMessageOptions, PeekOptions, WaitOptions } from './spec.ts';
export { UnexpectedMessageError, WaitTimeoutError } from './errors.ts';
export type { WaitMismatch, WaitTimeoutInit } from './errors.ts';
