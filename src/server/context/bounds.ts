/**
 * The bounds of a shared service (issue 31): which `Host` names it answers,
 * how many streams and guest inboxes one caller may hold, how many bytes an
 * in-memory store may keep, and where guests may forward mail. Each has an
 * option here, a flag of `inboxkit serve`, a default that a 16-worker
 * Playwright suite on one machine never reaches, and an error that names it.
 * docs/security.md lists them.
 *
 * @packageDocumentation
 */
import { ConfigError } from './config-error.ts';

/** The bounds a caller may give; each is optional. */
export interface BoundsOptions {
  /**
   * Extra `Host` names (or `name:port`) a service bound to loopback answers,
   * besides `localhost`, `*.localhost`, `127.x.x.x` and `[::1]`: for an SSH or
   * editor port forward that reaches it under another name.
   * @defaultValue `[]`
   */
  allowedHosts?: string[];
  /**
   * Event streams open at once per credential on one node; `null`: no cap.
   * @defaultValue `128`
   */
  maxStreamsPerCredential?: number | null;
  /**
   * Event streams open at once per client address on one node; `null`: no cap.
   * @defaultValue `512`
   */
  maxStreamsPerAddress?: number | null;
  /**
   * SMTP connections open at once from one client address on one node (behind
   * a balancer speaking the PROXY protocol, the client's own address); the
   * next is answered 421 and closed. `null`: no cap.
   * @defaultValue `100`
   */
  smtpMaxConnectionsPerAddress?: number | null;
  /**
   * Failed SMTP AUTH attempts one connection may make; the last is answered
   * 421 and the connection closed.
   * @defaultValue `3`
   */
  smtpAuthMaxFailures?: number;
  /**
   * After a failed SMTP AUTH, the wait before the next AUTH check of that
   * client address (on any connection), doubling with each failure within 10
   * minutes, up to 30 s; `0`: no wait (the per-connection bound still holds).
   * @defaultValue `250`
   */
  smtpAuthFailureDelayMs?: number;
  /**
   * Expired inboxes one pass of the expiry sweep deletes (one transaction),
   * chosen fairly between owners, oldest first; a sweep makes at most 10
   * passes, the rest waits for the next sweep. Inboxes holding mail past
   * `messageTtlSeconds` are visited in passes of the same size.
   * @defaultValue `100`
   */
  sweepBatch?: number;
  /**
   * Spam checks sent to the scanner at once on one node (spamd's
   * `--max-children` default is 5); the others wait their turn, round robin
   * between callers.
   * @defaultValue `5`
   */
  spamCheckConcurrency?: number;
  /**
   * Pending SMS verifications (Twilio Verify, Vonage Verify) one phone holds,
   * stored so every node shares them; past it the oldest go.
   * @defaultValue `20`
   */
  smsVerificationsPerPhone?: number;
  /**
   * Twilio Verify services one caller (`callerOf`) keeps; past it the oldest go.
   * @defaultValue `1000`
   */
  smsVerifyServicesPerCaller?: number;
  /**
   * Active guest inboxes (made without an API key) per client address; `null`: no cap.
   * @defaultValue `10000`
   */
  maxGuestInboxesPerAddress?: number | null;
  /**
   * Bytes of mail an in-memory store keeps (raw source, sanitized HTML and
   * attachments); past it, the oldest messages of the largest inboxes are
   * evicted. Applies only without a database file or URL; `null`: no cap.
   * @defaultValue 256 MiB
   */
  maxStoredBytes?: number | null;
  /**
   * Domains a guest inbox may forward to when the service has a relay
   * (subdomains included). Without any, guests cannot set `forwardTo`; API-key
   * users can.
   * @defaultValue `[]`
   */
  forwardAllow?: string[];
}

/** The bounds of a running service, every default applied. */
export interface ResolvedBounds {
  /** Extra allowed `Host` names, lower-cased (`name` or `name:port`). */
  allowedHosts: string[];
  maxStreamsPerCredential: number | null;
  maxStreamsPerAddress: number | null;
  maxGuestInboxesPerAddress: number | null;
  smtpMaxConnectionsPerAddress: number | null;
  smtpAuthMaxFailures: number;
  smtpAuthFailureDelayMs: number;
  spamCheckConcurrency: number;
  smsVerificationsPerPhone: number;
  smsVerifyServicesPerCaller: number;
  sweepBatch: number;
  /** Null when off, or when the store is not in memory. */
  maxStoredBytes: number | null;
  /** Domains guests may forward to, lower-cased. */
  forwardAllow: string[];
}

/** Default cap of SMTP connections per node: 1000 (keep it well under the process's descriptor limit). */
export const DEFAULT_SMTP_CONNECTIONS = 1000;

/** Default cap of SMTP connections per client address per node: 100 (Postfix's default opens at most 20 to one destination). */
export const DEFAULT_SMTP_CONNECTIONS_PER_ADDRESS = 100;

/** Default cap of stored bytes in memory mode: 256 MiB. */
export const DEFAULT_MAX_STORED_BYTES = 256 * 1024 * 1024;

function capOrNull(name: string, value: number | null | undefined, fallback: number): number | null {
  if (value === null) return null;
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(name, `option ${name} must be an integer >= 1, or null for no cap, got ${String(value)}.`);
  return n;
}

const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$/;

/**
 * Applies the defaults to the bounds and checks them.
 *
 * @param inMemory - Whether the store lives in memory (the stored-bytes cap applies only there).
 * @param maxMessageBytes - The largest message: the stored-bytes cap must hold one.
 * @throws ConfigError naming the option.
 */
export function resolveBounds(options: BoundsOptions, inMemory: boolean, maxMessageBytes: number): ResolvedBounds {
  const allowedHosts = (options.allowedHosts ?? []).map((h) => h.trim().toLowerCase());
  for (const h of allowedHosts) {
    if (!HOST_NAME.test(h)) throw new ConfigError('allowedHosts', `"${h}" is not a host name (give a name like devbox.internal, or name:port like devbox.internal:8025).`);
  }
  const forwardAllow = (options.forwardAllow ?? []).map((d) => d.trim().toLowerCase().replace(/^\*?\./, ''));
  for (const d of forwardAllow) {
    if (!HOST_NAME.test(d) || d.includes(':')) throw new ConfigError('forwardAllow', `"${d}" is not a mail domain (give a name like example.com).`);
  }
  const maxStoredBytes = capOrNull('maxStoredBytes', options.maxStoredBytes, DEFAULT_MAX_STORED_BYTES);
  if (maxStoredBytes !== null && maxStoredBytes < maxMessageBytes) {
    throw new ConfigError('maxStoredBytes', `option maxStoredBytes (${maxStoredBytes}) must be at least maxMessageBytes (${maxMessageBytes}), so one message of the largest size fits.`);
  }
  return {
    allowedHosts: [...new Set(allowedHosts)],
    maxStreamsPerCredential: capOrNull('maxStreamsPerCredential', options.maxStreamsPerCredential, 128),
    maxStreamsPerAddress: capOrNull('maxStreamsPerAddress', options.maxStreamsPerAddress, 512),
    maxGuestInboxesPerAddress: capOrNull('maxGuestInboxesPerAddress', options.maxGuestInboxesPerAddress, 10_000),
    smtpMaxConnectionsPerAddress: capOrNull('smtpMaxConnectionsPerAddress', options.smtpMaxConnectionsPerAddress, DEFAULT_SMTP_CONNECTIONS_PER_ADDRESS),
    smtpAuthMaxFailures: capOrNull('smtpAuthMaxFailures', options.smtpAuthMaxFailures, 3) ?? 3,
    smtpAuthFailureDelayMs: options.smtpAuthFailureDelayMs === 0 ? 0 : (capOrNull('smtpAuthFailureDelayMs', options.smtpAuthFailureDelayMs, 250) ?? 250),
    spamCheckConcurrency: capOrNull('spamCheckConcurrency', options.spamCheckConcurrency, 5) ?? 5,
    smsVerificationsPerPhone: capOrNull('smsVerificationsPerPhone', options.smsVerificationsPerPhone, 20) ?? 20,
    smsVerifyServicesPerCaller: capOrNull('smsVerifyServicesPerCaller', options.smsVerifyServicesPerCaller, 1000) ?? 1000,
    sweepBatch: capOrNull('sweepBatch', options.sweepBatch, 100) ?? 100,
    maxStoredBytes: inMemory ? maxStoredBytes : null,
    forwardAllow: [...new Set(forwardAllow)],
  };
}
