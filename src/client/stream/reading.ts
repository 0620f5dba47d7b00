/**
 * One connection of an inbox stream as it is read: its answer, its body's
 * iterator and its decoder, and the events already decoded ahead. A
 * connection opened during a hand-over (a draining node's `handover` event)
 * is read ahead up to its `ready` while the connection before it still
 * delivers, so the stream switches to it with nothing missed and no time
 * without a live connection.
 *
 * @packageDocumentation
 */
import { ConnectionError } from '../core/errors.ts';
import type { Clock } from '../internal/clock.ts';
import { createSseDecoder } from '../internal/sse.ts';
import type { SseEvent } from '../internal/sse.ts';
import type { StreamingAnswer } from '../internal/transport.ts';

/** The event a draining server sends on a stream it hands over: open the next connection now; this one stays live a little longer. */
export const HANDOVER_EVENT = 'handover';

/** Events after which a connection sends nothing more. */
const FINAL_EVENTS = new Set(['inbox.deleted', 'inbox.expired', 'access.revoked']);

/** A connection being read. */
export interface Reading {
  /** Which connection of the stream it is (from 1). */
  readonly number: number;
  readonly answer: StreamingAnswer;
  /** Aborting it closes this connection. */
  readonly connection: AbortController;
  readonly chunks: AsyncIterator<Buffer>;
  readonly decoder: ReturnType<typeof createSseDecoder>;
  /** Events decoded ahead and not handled yet (a hand-over's replay and `ready`). */
  readonly ahead: SseEvent[];
}

/** A connection whose headers are in, nothing of its body read yet. */
export function readingOf(number: number, answer: StreamingAnswer, connection: AbortController): Reading {
  return { number, answer, connection, chunks: (answer.body as AsyncIterable<Buffer>)[Symbol.asyncIterator](), decoder: createSseDecoder(), ahead: [] };
}

/**
 * Reads a connection ahead until it is live (its `ready`), sends a final
 * event, or its body ends; the events stay in `ahead` for the stream's loop.
 * Rejects with a `ConnectionError` (the stream reconnects) when the
 * connection breaks first or is not live within `limitMs` (0: no limit).
 */
export async function readAhead(reading: Reading, limitMs: number, clock: Clock, what: string): Promise<Reading> {
  const timer = limitMs > 0 ? clock.setTimeout(() => reading.connection.abort(), limitMs) : undefined;
  try {
    for (;;) {
      const next = await reading.chunks.next();
      if (next.done === true) return reading;
      const events = reading.decoder.push(next.value);
      reading.ahead.push(...events);
      if (events.some((event) => event.event === 'ready' || FINAL_EVENTS.has(event.event))) return reading;
    }
  } catch (cause) {
    reading.answer.body.destroy();
    const late = limitMs > 0 ? `, or was not live within ${limitMs} ms` : '';
    throw new ConnectionError(`${what}: the connection opened when the server handed the stream over broke${late}; reconnecting.`, { cause });
  } finally {
    clock.clearTimeout(timer);
  }
}
