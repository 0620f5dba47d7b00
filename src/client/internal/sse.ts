/**
 * Turns the bytes of a `text/event-stream` body into events, whatever the chunk
 * boundaries (even inside a multi-byte character or a line ending).
 */
import { createParser } from 'eventsource-parser';

/** One event of the stream, as sent. */
export interface SseEvent {
  /** The `event:` field; `message` when absent. */
  event: string;
  /** The `id:` field, when the event had one. */
  id: string | undefined;
  /** The `data:` lines joined with a line feed. */
  data: string;
}

/** A decoder for one connection. */
interface SseDecoder {
  /** Feeds bytes; returns the events they completed. */
  push(chunk: Uint8Array | string): SseEvent[];
  /** The last `retry:` value seen, in milliseconds, or `null`. */
  readonly retry: number | null;
  /** Comments seen so far (without the leading colon). */
  readonly comments: number;
}

/** Creates a decoder for one connection (a reconnection needs a new one). */
export function createSseDecoder(): SseDecoder {
  const text = new TextDecoder('utf-8');
  let pending: SseEvent[] = [];
  let retry: number | null = null;
  let comments = 0;
  const parser = createParser({
    onEvent: (message) => pending.push({ event: message.event ?? 'message', id: message.id, data: message.data }),
    onRetry: (ms) => {
      retry = ms;
    },
    onComment: () => {
      comments++;
    },
  });
  return {
    push(chunk) {
      parser.feed(typeof chunk === 'string' ? chunk : text.decode(chunk, { stream: true }));
      const out = pending;
      pending = [];
      return out;
    },
    get retry() {
      return retry;
    },
    get comments() {
      return comments;
    },
  };
}
