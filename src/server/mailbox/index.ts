/**
 * Every inbox as a mailbox (issue 46): IMAP4rev1 with IDLE and POP3, each on
 * its own port when configured, started and closed by one call from the
 * composition root.
 *
 * @packageDocumentation
 */
import { createSecureContext } from 'node:tls';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../context/config.ts';
import type { EventBus } from '../events/types.ts';
import type { Store } from '../storage/contract/types.ts';
import { createLoginGuard } from './shared/accounts.ts';
import { startImapSession } from './imap/session.ts';
import type { SessionDeps } from './shared/limits.ts';
import { startMailListener } from './shared/listener.ts';
import type { CapRefusal, MailListener } from './shared/listener.ts';
import { startPop3Session } from './pop3/session.ts';

/** What {@link startMailboxes} reads: a server context fits. */
export interface MailboxesContext {
  store: Store;
  bus: EventBus;
  config: ResolvedConfig;
  logger: Logger;
  now(): number;
  hash(secret: string): string;
}

/** The running mailbox listeners of a service. */
export interface Mailboxes {
  /** Where IMAP listens, or null when it is off. */
  imap: { host: string; port: number } | null;
  /** Where POP3 listens, or null when it is off. */
  pop3: { host: string; port: number } | null;
  /** Connections open now, both protocols. */
  openConnections(): number;
  /** Tells every session goodbye and stops listening. */
  close(): Promise<void>;
}

const CAP_TEXT: Record<CapRefusal, string> = {
  total: 'too many connections to this server (--mailbox-max-connections); try again later',
  per_address: 'too many connections from your address (--mailbox-max-connections-per-address); close one and try again',
};

/**
 * Starts the IMAP and POP3 listeners the configuration asks for (none when
 * both ports are unset). STARTTLS/STLS use the SMTP intake's key and
 * certificate (`config.smtp.tls`, a self-signed one included).
 *
 * @throws Error naming the protocol and port when one cannot listen.
 */
export async function startMailboxes(ctx: MailboxesContext): Promise<Mailboxes> {
  const { config } = ctx;
  const m = config.mailbox;
  const deps: SessionDeps = {
    store: ctx.store,
    bus: ctx.bus,
    now: ctx.now,
    hash: ctx.hash,
    logger: ctx.logger.child({ component: 'mailbox' }),
    guard: createLoginGuard(ctx.now),
    tls: config.smtp.tls ? createSecureContext({ key: config.smtp.tls.key, cert: config.smtp.tls.cert }) : null,
    limits: {
      idleTimeoutMs: m.idleTimeoutMs,
      loginTimeoutMs: m.loginTimeoutMs,
      maxLiteralBytes: m.maxLiteralBytes,
      commandsPerMinute: m.commandsPerMinute,
      maxLoginFailures: m.maxLoginFailures,
      maxMessages: m.maxMessages,
    },
  };
  const common = { maxConnections: m.maxConnections, maxConnectionsPerAddress: m.maxConnectionsPerAddress, useProxy: m.proxy, maxLineBytes: m.maxLineBytes };
  const listeners: MailListener[] = [];
  const close = () => Promise.all(listeners.map((l) => l.close())).then(() => undefined);
  try {
    const imap = m.imap
      ? await startMailListener({ ...common, protocol: 'IMAP', ...m.imap, refusal: (r) => `* BYE [UNAVAILABLE] ${CAP_TEXT[r]}\r\n`, onConnection: (c) => startImapSession(c, deps) })
      : null;
    if (imap) listeners.push(imap);
    const pop3 = m.pop3
      ? await startMailListener({ ...common, protocol: 'POP3', ...m.pop3, refusal: (r) => `-ERR [SYS/TEMP] ${CAP_TEXT[r]}\r\n`, onConnection: (c) => startPop3Session(c, deps) })
      : null;
    if (pop3) listeners.push(pop3);
    return {
      imap: imap && m.imap ? { host: m.imap.host, port: imap.port } : null,
      pop3: pop3 && m.pop3 ? { host: m.pop3.host, port: pop3.port } : null,
      openConnections: () => listeners.reduce((sum, l) => sum + l.open(), 0),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
