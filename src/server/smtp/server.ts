import type net from 'node:net';
import type tls from 'node:tls';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerOptions } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import type { SMTPConnectionOptions } from 'smtp-server/lib/smtp-connection.js';

type SmtpStream = ReturnType<SMTPConnection['_createParser']>;

/** The connection caps of one node; `null`: no cap. */
export interface ConnectionCaps {
  /** Connections open at once on this node. */
  total: number | null;
  /** Connections open at once from one client address on this node. */
  perAddress: number | null;
  /** Told of each connection refused before its greeting, with why. */
  onRefused?: (reason: RefusalReason) => void;
}

/** Why a connection was refused before its greeting. */
export type RefusalReason = 'total' | 'per_address' | 'draining';

const DRAINING = '4.3.2 This node is shutting down (draining); try again, another node will take the mail';

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

  /** Gives the connection's place back (per client address); runs once. */
  release: (() => void) | null = null;

  override _onClose(): void {
    this.clearLineTimer();
    // Not the raw socket's 'close': after STARTTLS the TLS socket owns the handle and the raw one never closes.
    this.release?.();
    this.release = null;
    super._onClose();
  }

  private clearLineTimer(): void {
    if (this.lineTimer) clearTimeout(this.lineTimer);
    this.lineTimer = null;
  }

  /** Why this connection is refused before its greeting (a cap, or a drain), or null. */
  refusal: string | null = null;

  /**
   * Between transactions of a draining node, the next command is answered 421
   * (a sender retries elsewhere); a transaction already begun (MAIL FROM given)
   * is let through to its end.
   */
  override _onCommand(command: Buffer, callback?: () => void): void {
    const server = this._server as PromptSmtpServer;
    if (server.draining && !this.session.envelope.mailFrom && !/^\s*QUIT\b/i.test(command.toString('latin1'))) {
      this.send(421, `${this.name} ${DRAINING}`);
      return;
    }
    super._onCommand(command, callback);
  }

  /**
   * Answers 421 and destroys the socket at once. smtp-server's own close after
   * a 421 only half-closes it and waits (up to 5 s) for the client to close
   * its side, so a client that never does would hold one of the node's
   * descriptors per refused connection, past every cap. The reply is one
   * short line on a fresh socket, handed to the kernel by the write itself;
   * closing the descriptor then still sends it, followed by the FIN.
   */
  refuseAndDestroy(text: string, context: string | false = false): void {
    const socket = this._socket;
    this.send(421, text, context);
    socket.destroy();
  }

  /**
   * Every 421 ends the connection (smtp-server then half-closes it and waits
   * up to 5 s for the client); here the socket is also destroyed as soon as
   * the reply is written, whether or not the client ever closes its side.
   */
  override send(code: number, data?: string | string[] | null, context?: string | false): void {
    super.send(code, data, context);
    if (code === 421 && !this._upgrading && !this._socket.destroyed) this._socket.destroySoon();
  }

  /**
   * EHLO before STARTTLS, when STARTTLS is offered, does not list AUTH: AUTH
   * is refused (538) until the session is encrypted, so offering it would
   * only invite a client to send its password in clear.
   */
  override handler_EHLO(command: Buffer, callback: () => void): void {
    const tlsOffered = !this.secure && this._isSupported('STARTTLS') && !this._server.options.hideSTARTTLS;
    if (!tlsOffered) {
      super.handler_EHLO(command, callback);
      return;
    }
    this.send = (code, data, context) => {
      const lines = Array.isArray(data) ? data.filter((line) => !/^AUTH\b/i.test(line)) : data;
      PromptConnection.prototype.send.call(this, code, lines, context);
    };
    try {
      super.handler_EHLO(command, callback);
    } finally {
      delete (this as { send?: unknown }).send;
    }
  }

  override init(): void {
    this._setListeners(() => {
      if (this.refusal !== null) {
        this.refuseAndDestroy(`${this.name} ${this.refusal}`);
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
  /** Set by a drain: new sessions are told 421, sessions between transactions too. */
  draining = false;
  private readonly caps: ConnectionCaps;
  /** Open connections by client address. */
  private readonly byAddress = new Map<string, number>();

  constructor(options: SMTPServerOptions, greetingDelayMs: number, lineDeadlineMs = 0, caps: ConnectionCaps = { total: null, perAddress: null }) {
    super(options);
    this.greetingDelayMs = greetingDelayMs;
    this.lineDeadlineMs = lineDeadlineMs;
    this.caps = caps;
  }

  /** During a drain: answers 421 to every session that is between transactions (an idle one would otherwise wait for its timeout). */
  closeIdle(): void {
    for (const connection of this.connections) {
      if (!connection.session.envelope.mailFrom) connection.send(421, `${connection.name} ${DRAINING}`);
    }
  }

  /** Destroys the socket of every open connection (a drain past its timeout); returns how many. */
  cutAll(): number {
    const open = [...this.connections];
    for (const connection of open) (connection as unknown as { _socket?: { destroy(): void } })._socket?.destroy();
    return open.length;
  }

  /** Connections open from `address` (behind a balancer, the client's own address). */
  connectionsFrom(address: string): number {
    return this.byAddress.get(address) ?? 0;
  }

  private refusalOf(address: string, held: number): { reason: RefusalReason; text: string } | null {
    if (this.draining) return { reason: 'draining', text: DRAINING };
    const { total, perAddress } = this.caps;
    if (total !== null && this.connections.size > total) {
      return { reason: 'total', text: `4.7.0 Too many SMTP connections to this node: the cap is ${total} (SMTP connections per node; inboxkit serve --smtp-max-connections); try again in a moment` };
    }
    if (perAddress !== null && held > perAddress) {
      return { reason: 'per_address', text: `4.7.0 Too many SMTP connections from your address ${address}: the cap is ${perAddress} (SMTP connections per client address, per node; inboxkit serve --smtp-max-connections-per-address); close idle connections or try again in a moment` };
    }
    return null;
  }

  override connect(socket: net.Socket | tls.TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    const connection = new PromptConnection(this, socket, socketOptions);
    connection.greetingDelayMs = this.greetingDelayMs;
    connection.lineDeadlineMs = this.lineDeadlineMs;
    this.connections.add(connection);
    // The address is the client's own (from the PROXY header behind a balancer).
    const address = connection.remoteAddress;
    const held = (this.byAddress.get(address) ?? 0) + 1;
    this.byAddress.set(address, held);
    connection.release = () => {
      const left = (this.byAddress.get(address) ?? 1) - 1;
      if (left > 0) this.byAddress.set(address, left);
      else this.byAddress.delete(address);
    };
    const refusal = this.refusalOf(address, held);
    if (refusal !== null) {
      connection.refusal = refusal.text;
      this.caps.onRefused?.(refusal.reason);
    }
    connection.on('error', (err: Error) => this._onError(err));
    connection.on('connect', (data) => this._onClientConnect(data));
    connection.init();
  }
}
