/**
 * Writing an event stream's bytes to its socket directly, once the HTTP
 * adapter has sent the response's headers: one `write` per event and
 * connection, already framed as an HTTP/1.1 chunk, with no promise, tick or
 * cork in between. For 1,000 streams of one inbox this is the difference
 * between one pass over the sockets and three queues (the body stream's
 * reads, the response's writes, the corked socket's flush at the next tick).
 *
 * @packageDocumentation
 */

/** The socket of a Node response, as far as a {@link SocketSink} uses it. */
export interface NodeSocket {
  write(chunk: Uint8Array): boolean;
  readonly writable: boolean;
  /** Bytes written and not yet taken by the kernel. */
  readonly writableLength: number;
  on(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

/**
 * What a connection uses of the Node `ServerResponse` under
 * @hono/node-server (every member optional: another adapter may give less,
 * and then the body stream carries everything).
 */
export interface NodeOutgoing {
  destroy?(): void;
  /** Whether the status line and headers are written (the adapter has begun the body). */
  readonly headersSent?: boolean;
  readonly writableEnded?: boolean;
  /** Bytes written and not yet taken by the kernel: the response's own buffer and its socket's. */
  readonly writableLength?: number;
  /** Whether the body is sent as HTTP/1.1 chunks (false for an HTTP/1.0 client: then as is). */
  readonly chunkedEncoding?: boolean;
  /** The socket, once the response owns it (a pipelined response waits for the one before). */
  readonly socket?: Partial<NodeSocket> | null;
  flushHeaders?(): void;
}

/** Frames bytes as HTTP/1.1 chunks; a shared frame (the same bytes for many connections) is framed once. */
export interface ChunkFraming {
  /** `data` as one HTTP/1.1 chunk (size line, data, CRLF). */
  chunk(data: string | Uint8Array): Uint8Array;
}

/**
 * Creates a framing whose chunks of `Uint8Array` frames are kept as long as
 * the frames are (a weak map), so that one message event is framed once
 * however many streams send it. One per router, never module state.
 */
export function createChunkFraming(): ChunkFraming {
  const framed = new WeakMap<Uint8Array, Uint8Array>();
  const frame = (data: string | Uint8Array): Uint8Array => {
    const length = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    const head = `${length.toString(16)}\r\n`;
    const out = Buffer.allocUnsafe(head.length + length + 2);
    out.write(head, 0, 'latin1');
    if (typeof data === 'string') out.write(data, head.length, length, 'utf8');
    else out.set(data, head.length);
    out.write('\r\n', head.length + length, 'latin1');
    return out;
  };
  return {
    chunk(data) {
      if (typeof data === 'string') return frame(data);
      let chunk = framed.get(data);
      if (chunk === undefined) {
        chunk = frame(data);
        framed.set(data, chunk);
      }
      return chunk;
    },
  };
}

/** Where a connection writes once the adapter has handed the body over. */
export interface SocketSink {
  /** Writes one event's bytes (nothing once the socket no longer takes writes). */
  write(data: string | Uint8Array): void;
  /** Bytes written and not yet taken by the kernel. */
  queued(): number;
  /** Calls `listener` each time the socket's buffer drains; returns the function that stops it. */
  onDrain(listener: () => void): () => void;
}

const encoder = new TextEncoder();

/**
 * The socket of `outgoing` as a sink, or null when the response cannot be
 * written to directly: no Node response (in-process `app.request`), headers
 * not written yet, the response ended, or bytes of it still held by the
 * response itself (a pipelined response waiting for the one before).
 * Call it only when everything queued for the body has been written (the
 * adapter's read is pending), or bytes would be reordered.
 */
export function socketSinkOf(outgoing: NodeOutgoing | undefined, framing: ChunkFraming): SocketSink | null {
  const socket = outgoing?.socket;
  if (!outgoing || !socket || outgoing.headersSent !== true || outgoing.writableEnded === true) return null;
  if (typeof socket.write !== 'function' || typeof socket.on !== 'function' || typeof socket.off !== 'function' || socket.writable !== true) return null;
  if (outgoing.writableLength !== socket.writableLength) return null;
  // The headers are out (a no-op when they are already): nothing of the response precedes a direct write.
  outgoing.flushHeaders?.();
  if (outgoing.writableLength !== socket.writableLength) return null;
  const node = socket as NodeSocket;
  const chunked = outgoing.chunkedEncoding === true;
  return {
    write(data) {
      if (!node.writable) return;
      node.write(chunked ? framing.chunk(data) : typeof data === 'string' ? encoder.encode(data) : data);
    },
    queued: () => node.writableLength,
    onDrain(listener) {
      node.on('drain', listener);
      return () => void node.off('drain', listener);
    },
  };
}
