/**
 * {@link WaitSource}: what the waits need from an inbox. The inbox handle
 * builds one from the client's resources, so the waits never call back into
 * the handle.
 *
 * @packageDocumentation
 */
import type { Message, MessageSummary } from '../../wire/schemas.ts';
import type { Clock } from '../internal/clock.ts';
import type { PagePromise } from '../core/pagination.ts';
import type { ReceivedMessage } from '../message/received.ts';
import type { InboxStream, StreamOptions } from '../stream/stream.ts';
import type { ListParams, RequestOptions } from '../core/types.ts';

/** The inbox a wait watches, as the calls it makes. @internal */
export interface WaitSource {
  /** The inbox's address, for error messages. */
  readonly address: string;
  /** Opens the inbox's event stream. */
  stream(options: StreamOptions): InboxStream;
  /** Lists the inbox's messages, newest first. */
  messages(options: ListParams & RequestOptions): PagePromise<MessageSummary>;
  /** Reads one whole message. */
  message(id: string, options: RequestOptions): PromiseLike<Message>;
  /** The clock the waits time themselves by (injected in tests). */
  readonly clock: Clock;
  /** Wraps a whole message for the caller (links, otp, raw …). */
  wrap(message: Message): ReceivedMessage;
}
