/**
 * Server-Sent Events, as the service's two streams (`GET /inboxes/{id}/stream`
 * and `GET /me/events`) write them: one event's text, and the response that
 * carries a stream.
 *
 * @packageDocumentation
 */

/** One SSE event. `data` is JSON, which never contains a raw CR or LF. */
export function formatEvent(event: string, data: unknown, id?: number): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/**
 * The 200 answer of an event stream: `text/event-stream`, never cached or
 * buffered by a proxy. With a null body, the answer to a `HEAD`.
 */
export function eventStreamResponse(body: ReadableStream<Uint8Array> | null): Response {
  return new Response(body, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
