/**
 * One client connection of the mailbox listeners (IMAP, POP3), read by pull:
 * a session asks for the next line, or for the next `n` bytes of a literal,
 * and gets it when it has arrived. A line longer than its bound fails the
 * read (the session then says so and closes); reading stops while more than
 * that is waiting, so a client that sends faster than the session answers
 * holds a bounded buffer. STARTTLS swaps the socket under the same reader.
 *
 * @packageDocumentation
 */
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { SecureContext } from 'node:tls';

/** A line past `maxLineBytes`, or a connection whose client sent too much at once. */
export class LineTooLongError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`a command line is longer than ${limit} bytes`);
    this.name = 'LineTooLongError';
    this.limit = limit;
  }
}

type Want = { kind: 'line' } | { kind: 'bytes'; n: number };

/** A pull reader and writer over one socket (see the module's comment). */
export class MailConnection {
  private socket: Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private want: { what: Want; resolve: (value: Buffer | null) => void; reject: (error: Error) => void } | null = null;
  private ended = false;
  private failure: Error | null = null;
  /** Whether the connection is over TLS (after STARTTLS/STLS). */
  secure = false;
  /** Called when the client was silent for the idle timeout; the session says goodbye and closes. */
  onTimeout: () => void = () => this.close();
  /** Called once when the connection is gone. */
  onClose: () => void = () => {};

  /** The client's address (from the PROXY header when one was read). */
  readonly address: string;
  private readonly maxLineBytes: number;

  constructor(socket: Socket, address: string, maxLineBytes: number, initial: Buffer = Buffer.alloc(0)) {
    this.address = address;
    this.maxLineBytes = maxLineBytes;
    this.socket = socket;
    this.buffer = initial;
    this.attach(socket);
  }

  /** This reader's own listeners, so STARTTLS takes them off the plain socket and leaves the listener's. */
  private readonly handlers = {
    data: (chunk: Buffer) => this.received(chunk),
    timeout: () => this.onTimeout(),
    close: () => this.gone(),
  };

  private attach(socket: Socket): void {
    socket.on('data', this.handlers.data);
    socket.on('timeout', this.handlers.timeout);
    socket.on('error', () => socket.destroy());
    socket.on('close', this.handlers.close);
  }

  private gone(): void {
    if (this.ended) return;
    this.ended = true;
    this.settle();
    this.onClose();
  }

  private received(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    // Twice the line bound waiting unread: stop reading until the session catches up.
    if (this.buffer.length > this.maxLineBytes * 2) this.socket.pause();
    this.settle();
  }

  /** Hands the waiting read what it asked for, if it has arrived. */
  private settle(): void {
    const want = this.want;
    if (!want) return;
    const take = (value: Buffer | null) => {
      this.want = null;
      if (this.buffer.length <= this.maxLineBytes) this.socket.resume();
      want.resolve(value);
    };
    if (want.what.kind === 'bytes') {
      if (this.buffer.length >= want.what.n) {
        const out = this.buffer.subarray(0, want.what.n);
        this.buffer = this.buffer.subarray(want.what.n);
        take(out);
      } else if (this.ended) take(null);
      return;
    }
    const lf = this.buffer.indexOf(10);
    if (lf === -1 || lf > this.maxLineBytes) {
      if (this.buffer.length > this.maxLineBytes) {
        this.want = null;
        this.failure = new LineTooLongError(this.maxLineBytes);
        want.reject(this.failure);
      } else if (this.ended) take(null);
      return;
    }
    const end = lf > 0 && this.buffer[lf - 1] === 13 ? lf - 1 : lf;
    const line = this.buffer.subarray(0, end);
    this.buffer = this.buffer.subarray(lf + 1);
    take(line);
  }

  private read(what: Want): Promise<Buffer | null> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.want = { what, resolve, reject };
      this.settle();
    });
  }

  /** The next line without its CRLF; null once the connection is closed. */
  line(): Promise<Buffer | null> {
    return this.read({ kind: 'line' });
  }

  /** The next `n` bytes (a literal); null once the connection is closed. */
  bytes(n: number): Promise<Buffer | null> {
    return this.read({ kind: 'bytes', n });
  }

  /** Whether the client already sent more than the session read (forbidden before STARTTLS completes). */
  hasPendingInput(): boolean {
    return this.buffer.length > 0;
  }

  /** Whether the connection is closed. */
  get closed(): boolean {
    return this.ended || this.socket.destroyed;
  }

  /** Writes to the client; a closed connection ignores it. */
  write(data: string | Buffer): void {
    if (!this.closed) this.socket.write(data);
  }

  /** Resolves once the socket can take more (what was written has gone to the kernel), so a long FETCH does not pile up in memory. */
  async flushed(): Promise<void> {
    const socket = this.socket;
    if (this.closed || !socket.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  }

  /** Sets the idle timeout: after `ms` without input, `onTimeout` runs. */
  setIdleTimeout(ms: number): void {
    this.socket.setTimeout(ms);
  }

  /** Turns the connection into a TLS server connection (STARTTLS, STLS); resolves once the handshake is done. */
  startTls(context: SecureContext, handshakeTimeoutMs: number): Promise<void> {
    const plain = this.socket;
    plain.off('data', this.handlers.data);
    plain.off('timeout', this.handlers.timeout);
    plain.off('close', this.handlers.close);
    const secure = new TLSSocket(plain, { isServer: true, secureContext: context });
    const timeout = plain.timeout ?? 0;
    this.socket = secure;
    this.attach(secure);
    secure.setTimeout(timeout);
    plain.on('close', () => secure.destroy());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        secure.destroy();
        reject(new Error('the TLS handshake did not finish in time'));
      }, handshakeTimeoutMs);
      secure.once('secure', () => {
        clearTimeout(timer);
        this.secure = true;
        resolve();
      });
      secure.once('close', () => {
        clearTimeout(timer);
        reject(new Error('the connection closed during the TLS handshake'));
      });
    });
  }

  /** Ends the connection after what was written is sent. */
  close(): void {
    if (this.socket.destroyed) return;
    this.socket.end();
    // A client that never reads would hold the socket open: cut it shortly after.
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }
}
