/**
 * The event streams open on a node, so that a drain can hand them over
 * (each told a short `retry:` and `event: handover`, and ended after a
 * grace, so its client reconnects through the balancer at once instead of
 * after the usual 2 s, inboxkit's before this one ends), and what happens
 * to them, for the metrics: events sent, resumes from `Last-Event-ID`,
 * clients dropped as too slow.
 *
 * @packageDocumentation
 */

/** One open stream, as far as a hand-over needs it. */
export interface HandOverable {
  /** Tells the client to reconnect (after `retryMs`, or at once on `event: handover`), delivers for up to `graceMs` more, then ends the stream cleanly. */
  handOver(retryMs: number, graceMs: number): void;
}

/** What is counted of the streams of a node. */
export type StreamHappening = 'opened' | 'resumed' | 'event' | 'slow_client_dropped' | 'handed_over';

/** The streams open on a node. */
export interface LiveStreams {
  /** Notes an open stream; returns the function that forgets it (call it once the stream ends). */
  add(stream: HandOverable): () => void;
  /** Hands every open stream over (see {@link HandOverable.handOver}); returns how many were. */
  handOver(retryMs: number, graceMs: number): number;
  /** Counts what happened to a stream (told to the observer, if any). */
  note(what: StreamHappening, count?: number): void;
  /** Sets the observer of {@link LiveStreams.note} (the metrics). */
  observe(observer: (what: StreamHappening, count: number) => void): void;
  /** How many are open now. */
  size(): number;
}

/** The registry of one node's streams (never module state). */
export function createLiveStreams(): LiveStreams {
  const open = new Set<HandOverable>();
  let observer: ((what: StreamHappening, count: number) => void) | null = null;
  const note = (what: StreamHappening, count = 1) => observer?.(what, count);
  return {
    add(stream) {
      open.add(stream);
      return () => void open.delete(stream);
    },
    handOver(retryMs, graceMs) {
      const streams = [...open];
      open.clear();
      for (const stream of streams) stream.handOver(retryMs, graceMs);
      note('handed_over', streams.length);
      return streams.length;
    },
    note,
    observe(next) {
      observer = next;
    },
    size: () => open.size,
  };
}
