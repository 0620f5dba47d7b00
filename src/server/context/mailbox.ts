/**
 * The configuration of the mailbox listeners (issue 46): IMAP and POP3, each
 * off unless given a port, and the bounds their sessions keep.
 *
 * @packageDocumentation
 */
import { ConfigError } from './config-error.ts';

/** The mailbox options a caller may give; each is optional. */
export interface MailboxOptions {
  /**
   * IMAP port (each inbox an account: its address and its inbox token); 0 picks a free one.
   * @defaultValue `null` (no IMAP listener)
   */
  imapPort?: number | null;
  /**
   * Host the IMAP listener binds to.
   * @defaultValue the SMTP host
   */
  imapHost?: string;
  /**
   * POP3 port (the same accounts as IMAP); 0 picks a free one.
   * @defaultValue `null` (no POP3 listener)
   */
  pop3Port?: number | null;
  /**
   * Host the POP3 listener binds to.
   * @defaultValue the SMTP host
   */
  pop3Host?: string;
  /**
   * IMAP or POP3 connections open at once, per listener, on this node; the next is told so and closed. `null`: no cap.
   * @defaultValue `1000`
   */
  mailboxMaxConnections?: number | null;
  /**
   * IMAP or POP3 connections open at once from one client address, per listener, on this node
   * (behind a balancer speaking the PROXY protocol, the client's own address). `null`: no cap.
   * @defaultValue `100`
   */
  mailboxMaxConnectionsPerAddress?: number | null;
  /**
   * Silence allowed on a logged-in IMAP or POP3 connection (an IDLE included), in milliseconds;
   * RFC 3501 asks for at least 30 minutes.
   * @defaultValue `1800000`
   */
  mailboxIdleTimeoutMs?: number;
  /**
   * Silence allowed before login, in milliseconds (also the TLS handshake's deadline).
   * @defaultValue `60000`
   */
  mailboxLoginTimeoutMs?: number;
  /**
   * Longest command line, in bytes.
   * @defaultValue `65536`
   */
  mailboxMaxLineBytes?: number;
  /**
   * Literal bytes one IMAP command may carry (at most 16 literals).
   * @defaultValue `65536`
   */
  mailboxMaxLiteralBytes?: number;
  /**
   * Commands per minute on one connection; past it a command is refused (NO [LIMIT], -ERR [SYS/TEMP]). `null`: no cap.
   * @defaultValue `6000`
   */
  mailboxCommandsPerMinute?: number | null;
  /**
   * Failed logins after which a connection is closed (each failure also doubles the wait before the
   * next answer to that client address, from 250 ms to 8 s, forgotten after 15 minutes).
   * @defaultValue `3`
   */
  mailboxMaxLoginFailures?: number;
  /**
   * Messages one IMAP or POP3 session lists, oldest first.
   * @defaultValue `10000`
   */
  mailboxMaxMessages?: number;
  /**
   * Read a PROXY protocol (v1) header first on IMAP and POP3 connections, from every peer (`true`)
   * or from these balancer addresses only, so caps see the client's address.
   * @defaultValue `false`
   */
  mailboxProxy?: boolean | string[];
}

/** The mailbox part of the resolved configuration. */
export interface ResolvedMailboxConfig {
  /** Where IMAP listens, or null when it is off. */
  imap: { host: string; port: number } | null;
  /** Where POP3 listens, or null when it is off. */
  pop3: { host: string; port: number } | null;
  maxConnections: number | null;
  maxConnectionsPerAddress: number | null;
  idleTimeoutMs: number;
  loginTimeoutMs: number;
  maxLineBytes: number;
  maxLiteralBytes: number;
  commandsPerMinute: number | null;
  maxLoginFailures: number;
  maxMessages: number;
  proxy: boolean | string[];
}

function int(name: string, value: number | undefined, fallback: number, min = 1): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min) throw new ConfigError(name, `option ${name} must be an integer >= ${min}, got ${String(value)}.`);
  return n;
}

function cap(name: string, value: number | null | undefined, fallback: number): number | null {
  return value === null ? null : int(name, value, fallback);
}

function listener(name: string, port: number | null | undefined, host: string): { host: string; port: number } | null {
  if (port === null || port === undefined) return null;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new ConfigError(name, `option ${name} must be a port from 0 to 65535 (0 picks a free one), or null for none, got ${String(port)}.`);
  return { host, port };
}

/**
 * Applies the defaults to the mailbox options and checks them.
 *
 * @param defaultHost - The host the listeners bind to unless told otherwise (the SMTP host).
 * @throws ConfigError naming the option.
 */
export function resolveMailbox(options: MailboxOptions, defaultHost: string): ResolvedMailboxConfig {
  return {
    imap: listener('imapPort', options.imapPort, options.imapHost ?? defaultHost),
    pop3: listener('pop3Port', options.pop3Port, options.pop3Host ?? defaultHost),
    maxConnections: cap('mailboxMaxConnections', options.mailboxMaxConnections, 1000),
    maxConnectionsPerAddress: cap('mailboxMaxConnectionsPerAddress', options.mailboxMaxConnectionsPerAddress, 100),
    idleTimeoutMs: int('mailboxIdleTimeoutMs', options.mailboxIdleTimeoutMs, 30 * 60_000),
    loginTimeoutMs: int('mailboxLoginTimeoutMs', options.mailboxLoginTimeoutMs, 60_000),
    maxLineBytes: int('mailboxMaxLineBytes', options.mailboxMaxLineBytes, 65_536, 512),
    maxLiteralBytes: int('mailboxMaxLiteralBytes', options.mailboxMaxLiteralBytes, 65_536),
    commandsPerMinute: cap('mailboxCommandsPerMinute', options.mailboxCommandsPerMinute, 6000),
    maxLoginFailures: int('mailboxMaxLoginFailures', options.mailboxMaxLoginFailures, 3),
    maxMessages: int('mailboxMaxMessages', options.mailboxMaxMessages, 10_000),
    proxy: options.mailboxProxy ?? false,
  };
}
