/**
 * The options of a service that an operator runs for a team (issue 40): how
 * it stands behind a load balancer (the PROXY protocol on SMTP), how it drains
 * on SIGTERM, and what it exposes to Prometheus. docs/team-service.md is the
 * guide.
 *
 * @packageDocumentation
 */
import { ConfigError } from './config-error.ts';

/** The operations options a caller may give; each is optional. */
export interface OperationsOptions {
  /**
   * Read a PROXY protocol (v1 or v2) header at the start of each SMTP
   * connection, from every peer (`true`) or only from these peer addresses
   * (the balancer's), so that caps, logs and envelopes see the client's own
   * address. A peer expected to send one that does not is cut off.
   * @defaultValue `false`
   */
  smtpProxy?: boolean | string[];
  /**
   * Offer STARTTLS with a self-signed certificate made at start (needs the
   * optional package selfsigned), when no `smtpTls` pair is given.
   * @defaultValue `false`
   */
  smtpTlsSelfSigned?: boolean;
  /**
   * SMTP AUTH (PLAIN and LOGIN, offered only after STARTTLS): `'off'`, not
   * offered; `'optional'`, offered; `'required'`, mail is refused (530)
   * until the client authenticates. The password is an API key the operator
   * issued (`inboxkit keys create`), stored hashed; the user name is free
   * (it names the sender in logs). A wrong one is refused with 535 5.7.8,
   * never saying which part was wrong.
   * @defaultValue `'off'`
   */
  smtpAuth?: 'off' | 'optional' | 'required';
  /**
   * How long a drain (SIGTERM, or `RunningServer.drain()`) waits, after the
   * readiness check turned unhealthy, before it refuses new SMTP sessions and
   * ends event streams: the time a balancer needs to notice (its check
   * interval times its fall count). Requests are served as usual meanwhile.
   * @defaultValue `0`
   */
  drainNoticeMs?: number;
  /**
   * The longest a drain takes in all: SMTP sessions and HTTP requests still
   * open then are cut, and the node stops.
   * @defaultValue `25000`
   */
  drainTimeoutMs?: number;
  /**
   * Serve `/metrics` in the Prometheus text format (needs the optional
   * package prom-client). It shows counts, never mail or credentials; keep it
   * to the operator's network, as a balancer does by not routing it.
   * @defaultValue `false`
   */
  metrics?: boolean;
  /**
   * How long mail is kept, in seconds, whatever its inbox's lifetime: the
   * expiry sweep (every `sweepIntervalMs`) deletes messages received longer
   * ago, on every node of a shared database without two deleting the same.
   * `null`: mail lives as long as its inbox (`inboxTtlSeconds`).
   * @defaultValue `null`
   */
  messageTtlSeconds?: number | null;
  /**
   * Trust the client address a balancer at one of these peer addresses puts in
   * `X-Forwarded-For` (its last entry: the address the balancer saw), so that
   * HTTP caps and rate limits count the client, not the balancer. From any
   * other peer the header is ignored, as a client could write anything in it.
   * @defaultValue `[]` (never trusted)
   */
  trustProxy?: string[];
  /**
   * Webhook targets the provider APIs may call (`host:port`, or `host` for
   * any port) besides loopback on a local service. A shared service (behind a
   * balancer, or reachable from other machines) calls nothing else: its
   * loopback holds its own ports, the balancer's and the database's.
   * @defaultValue `[]`
   */
  webhookAllow?: string[];
}

/** The operations options of a running service, every default applied. */
export interface ResolvedOperations {
  /** Whose SMTP connections start with a PROXY header: nobody (`false`), everybody (`true`), or these peers. */
  smtpProxy: boolean | string[];
  drainNoticeMs: number;
  drainTimeoutMs: number;
  metrics: boolean;
  smtpTlsSelfSigned: boolean;
  smtpAuth: 'off' | 'optional' | 'required';
  messageTtlSeconds: number | null;
  trustProxy: string[];
  webhookAllow: string[];
}

/** Checks the operator's webhook targets: `host` or `host:port`, no scheme or path. */
function webhookTargets(list: unknown[]): string[] {
  return list.map((entry) => {
    if (typeof entry !== 'string' || !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(entry)) {
      throw new ConfigError('webhookAllow', `option webhookAllow takes host or host:port entries (no scheme, no path), got ${JSON.stringify(entry)}.`);
    }
    return entry.replace(/^\[|\](?=:|$)/g, '');
  });
}

/** Checks a list of peers given by IP address (the balancer's). */
function peers(name: string, list: unknown[]): string[] {
  for (const peer of list) {
    if (typeof peer !== 'string' || !/^[0-9a-fA-F:.]+$/.test(peer)) {
      throw new ConfigError(name, `option ${name} lists peers by IP address (the balancer's, e.g. 127.0.0.1), got "${String(peer)}".`);
    }
  }
  return [...(list as string[])];
}

function milliseconds(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(name, `option ${name} must be a whole number of milliseconds >= 0, got ${String(value)}.`);
  return value;
}

/**
 * Applies the defaults to the operations options and checks them.
 *
 * @throws ConfigError naming the option.
 */
export function resolveOperations(options: OperationsOptions, tlsPairGiven: boolean): ResolvedOperations {
  const smtpAuth = options.smtpAuth ?? 'off';
  if (!['off', 'optional', 'required'].includes(smtpAuth)) throw new ConfigError('smtpAuth', `option smtpAuth must be 'off', 'optional' or 'required', got ${JSON.stringify(smtpAuth)}.`);
  const smtpTlsSelfSigned = options.smtpTlsSelfSigned === true && !tlsPairGiven;
  if (smtpAuth !== 'off' && !tlsPairGiven && !smtpTlsSelfSigned) {
    throw new ConfigError('smtpAuth', 'SMTP AUTH is offered only after STARTTLS: give smtpTls (--smtp-tls-key and --smtp-tls-cert) or smtpTlsSelfSigned (--smtp-tls-self-signed).');
  }
  const proxy = options.smtpProxy ?? false;
  const messageTtlSeconds = options.messageTtlSeconds ?? null;
  if (messageTtlSeconds !== null && (!Number.isInteger(messageTtlSeconds) || messageTtlSeconds < 1)) {
    throw new ConfigError('messageTtlSeconds', `option messageTtlSeconds must be a whole number of seconds >= 1, or null to keep mail as long as its inbox, got ${String(messageTtlSeconds)}.`);
  }
  const drainNoticeMs = milliseconds('drainNoticeMs', options.drainNoticeMs ?? 0);
  const drainTimeoutMs = milliseconds('drainTimeoutMs', options.drainTimeoutMs ?? 25_000);
  if (drainTimeoutMs < drainNoticeMs) {
    throw new ConfigError('drainTimeoutMs', `option drainTimeoutMs (${drainTimeoutMs}) must be at least drainNoticeMs (${drainNoticeMs}): the notice is part of the drain.`);
  }
  return {
    smtpProxy: Array.isArray(proxy) ? peers('smtpProxy', proxy) : proxy,
    drainNoticeMs,
    drainTimeoutMs,
    metrics: options.metrics === true,
    smtpTlsSelfSigned,
    smtpAuth,
    messageTtlSeconds,
    trustProxy: peers('trustProxy', options.trustProxy ?? []),
    webhookAllow: webhookTargets(options.webhookAllow ?? []),
  };
}
