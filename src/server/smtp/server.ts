import type net from 'node:net';
import type tls from 'node:tls';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerOptions } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import type { SMTPConnectionOptions } from 'smtp-server/lib/smtp-connection.js';

type SmtpStream = ReturnType<SMTPConnection['_createParser']>;

/**
 * smtp-server (3.x) holds every new connection 100 ms before its 220 greeting,
 * to catch "early talkers" (spam bots that speak first). A local test inbox has
 * no use for that and the wait adds up over a test suite, so this connection
 * replaces `init()` with the same steps — listeners, the maxClients check,
 * `connectionReady()` — and a configurable wait (none by default).
 *
 * It relies on smtp-server's `init()`/`_setListeners()`/`connectionReady()`,
 * which are declared in its published types; the test "the greeting comes
 * without the early-talker wait" pins the behaviour, so an upgrade that
 * changes them fails loudly instead of silently.
 */
class PromptConnection extends SMTPConnection {
  greetingDelayMs = 0;
  /** How long one line (command or message content) may take from its first byte to its LF; 0: no limit. */
  lineDeadlineMs = 0;
  private lineTimer: ReturnType<typeof setTimeout> | null = null;

  /**
   * Every byte the protocol reads passes through the current parser (a new one
   * after STARTTLS), so this is where a line's progress is watched. The idle
   * timeout alone never fires for a client that trickles a byte at a time
   * (slowloris); like Postfix's `smtpd_per_record_deadline`, a line that is not
   * completed within the deadline ends the session with 421.
   */
  override _createParser(): SmtpStream {
    // The first parser is made in SMTPConnection's constructor, before this
    // class's fields are set: the deadline is read when data arrives.
    const parser = super._createParser();
    const write = parser.write.bind(parser) as (chunk: unknown, ...rest: unknown[]) => boolean;
    parser.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (this.lineDeadlineMs > 0 && Buffer.isBuffer(chunk)) this.watchLine(chunk);
      return write(chunk, ...rest);
    }) as typeof parser.write;
    return parser;
  }

  private watchLine(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const lastLf = chunk.lastIndexOf(0x0a);
    if (lastLf === chunk.length - 1) {
      this.clearLineTimer();
      return;
    }
    // A line is open: it started in this chunk (after its last LF) or earlier.
    if (lastLf >= 0) this.clearLineTimer();
    if (this.lineTimer) return;
    this.lineTimer = setTimeout(() => {
      this.lineTimer = null;
      this.send(421, `${this.name} Timeout - a line was not completed within ${this.lineDeadlineMs} ms, closing connection`);
    }, this.lineDeadlineMs);
    this.lineTimer.unref();
  }

  override _onClose(): void {
    this.clearLineTimer();
    super._onClose();
  }

  private clearLineTimer(): void {
    if (this.lineTimer) clearTimeout(this.lineTimer);
    this.lineTimer = null;
  }

  override init(): void {
    this._setListeners(() => {
      const server = this._server;
      if (server.options.maxClients && server.connections.size > server.options.maxClients) {
        this.send(421, `${this.name} Too many connected clients, try again in a moment`, false);
        return;
      }
      if (this.greetingDelayMs <= 0) {
        this.connectionReady();
        return;
      }
      setTimeout(() => this.connectionReady(), this.greetingDelayMs).unref();
    });
  }
}

/**
 * An smtp-server whose greeting waits `greetingDelayMs` (0: none) instead of a
 * fixed 100 ms, and whose lines must each complete within `lineDeadlineMs` (0: no limit).
 */
export class PromptSmtpServer extends SMTPServer {
  readonly greetingDelayMs: number;
  readonly lineDeadlineMs: number;

  constructor(options: SMTPServerOptions, greetingDelayMs: number, lineDeadlineMs = 0) {
    super(options);
    this.greetingDelayMs = greetingDelayMs;
    this.lineDeadlineMs = lineDeadlineMs;
  }

  override connect(socket: net.Socket | tls.TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    const connection = new PromptConnection(this, socket, socketOptions);
    connection.greetingDelayMs = this.greetingDelayMs;
    connection.lineDeadlineMs = this.lineDeadlineMs;
    this.connections.add(connection);
    connection.on('error', (err: Error) => this._onError(err));
    connection.on('connect', (data) => this._onClientConnect(data));
    connection.init();
  }
}
