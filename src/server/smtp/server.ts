import type net from 'node:net';
import type tls from 'node:tls';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerOptions } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import type { SMTPConnectionOptions } from 'smtp-server/lib/smtp-connection.js';

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

/** An smtp-server whose greeting waits `greetingDelayMs` (0: none) instead of a fixed 100 ms. */
export class PromptSmtpServer extends SMTPServer {
  readonly greetingDelayMs: number;

  constructor(options: SMTPServerOptions, greetingDelayMs: number) {
    super(options);
    this.greetingDelayMs = greetingDelayMs;
  }

  override connect(socket: net.Socket | tls.TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    const connection = new PromptConnection(this, socket, socketOptions);
    connection.greetingDelayMs = this.greetingDelayMs;
    this.connections.add(connection);
    connection.on('error', (err: Error) => this._onError(err));
    connection.on('connect', (data) => this._onClientConnect(data));
    connection.init();
  }
}
