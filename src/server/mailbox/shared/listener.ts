/**
 * The TCP listener shared by IMAP and POP3: caps on connections in total and
 * per client address (the refused client gets one line saying which cap, then
 * the connection closes), an optional PROXY protocol (v1) header read first
 * from trusted balancers, so the caps see the client's own address, and
 * `close()` that tells every open session goodbye.
 *
 * @packageDocumentation
 */
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { MailConnection } from './connection.ts';

/** Why a connection was refused before its session started. */
export type CapRefusal = 'total' | 'per_address';

/** Options of {@link startMailListener}. */
export interface MailListenerOptions {
  /** `IMAP` or `POP3`, for error messages. */
  protocol: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Most connections open at once; null: no cap. */
  maxConnections: number | null;
  /** Most connections open at once from one client address; null: no cap. */
  maxConnectionsPerAddress: number | null;
  /** Read a PROXY v1 header first: from every peer (`true`) or from these peer addresses only. */
  useProxy: boolean | readonly string[];
  /** Longest command line, in bytes. */
  maxLineBytes: number;
  /** The line a capped connection is sent before it is closed. */
  refusal(reason: CapRefusal): string;
  /** Starts a session on an accepted connection; returns how to end it when the listener closes. */
  onConnection(connection: MailConnection): { shutdown(): void };
}

/** A running mailbox listener. */
export interface MailListener {
  /** The port it listens on (the real one when 0 was asked). */
  port: number;
  /** Connections open now. */
  open(): number;
  /** Stops accepting, tells each open session goodbye, and resolves once every connection is gone. */
  close(): Promise<void>;
}

/** The longest PROXY v1 header (the protocol's own bound). */
const PROXY_MAX_BYTES = 107;
/** How long a peer that must send a PROXY header may take to send it. */
const PROXY_TIMEOUT_MS = 10_000;

/** The peer address without the IPv4-mapped IPv6 prefix. */
function plainAddress(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:/, '');
}

/** Reads the PROXY v1 header of a socket; resolves with the client's address and what followed the header, or null for a bad header. */
function readProxyHeader(socket: Socket): Promise<{ address: string; rest: Buffer } | null> {
  return new Promise((resolve) => {
    let buffer = Buffer.alloc(0);
    const done = (value: { address: string; rest: Buffer } | null) => {
      socket.off('data', onData);
      socket.setTimeout(0);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n');
      if (end === -1) {
        if (buffer.length > PROXY_MAX_BYTES) done(null);
        return;
      }
      const parts = buffer.subarray(0, end).toString('latin1').split(' ');
      const rest = buffer.subarray(end + 2);
      if (parts[0] !== 'PROXY') return done(null);
      if (parts[1] === 'UNKNOWN') return done({ address: plainAddress(socket.remoteAddress), rest });
      if ((parts[1] !== 'TCP4' && parts[1] !== 'TCP6') || parts.length !== 6) return done(null);
      done({ address: plainAddress(parts[2]), rest });
    };
    socket.on('data', onData);
    socket.setTimeout(PROXY_TIMEOUT_MS, () => done(null));
  });
}

/** Whether a peer must send a PROXY header. */
function mustSendProxy(useProxy: boolean | readonly string[], peer: string): boolean {
  return useProxy === true || (Array.isArray(useProxy) && useProxy.includes(peer));
}

/**
 * Starts a mailbox listener (see the module's comment).
 *
 * @throws Error naming the protocol, host and port when it cannot listen.
 */
export async function startMailListener(options: MailListenerOptions): Promise<MailListener> {
  const perAddress = new Map<string, number>();
  const sessions = new Set<{ shutdown(): void }>();
  const sockets = new Set<Socket>();

  const accept = (socket: Socket, address: string, rest: Buffer) => {
    const count = perAddress.get(address) ?? 0;
    const reason: CapRefusal | null =
      options.maxConnections !== null && sockets.size > options.maxConnections ? 'total' : options.maxConnectionsPerAddress !== null && count >= options.maxConnectionsPerAddress ? 'per_address' : null;
    if (reason) {
      socket.end(options.refusal(reason));
      setTimeout(() => socket.destroy(), 2000).unref();
      return;
    }
    perAddress.set(address, count + 1);
    const connection = new MailConnection(socket, address, options.maxLineBytes, rest);
    const session = options.onConnection(connection);
    sessions.add(session);
    socket.once('close', () => {
      sessions.delete(session);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setNoDelay(true);
    const peer = plainAddress(socket.remoteAddress);
    if (!mustSendProxy(options.useProxy, peer)) return accept(socket, peer, Buffer.alloc(0));
    void readProxyHeader(socket).then((header) => (header ? accept(socket, header.address, header.rest) : socket.destroy()));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? `port ${options.port} is already in use` : error.message;
      reject(new Error(`inboxkit: cannot listen for ${options.protocol} on ${options.host}:${options.port}: ${why}. Pick another ${options.protocol} port (0 chooses a free one).`, { cause: error }));
    });
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  let closing: Promise<void> | null = null;
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    open: () => sockets.size,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of [...sessions]) session.shutdown();
        // Sessions that did not close by themselves within a second are cut.
        setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 1000).unref();
      });
      return closing;
    },
  };
}
