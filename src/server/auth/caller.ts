/**
 * Who a request is charged to, decided once. Every bound of a shared service
 * (the rate limit, open streams, guest inboxes, check shares, SMS Verify
 * services, phone numbers, MCP sessions, webhooks) counts callers with
 * {@link callerOf}, so a caller is the same caller everywhere:
 * - an API key is its key;
 * - a session issued under a key with caps of its own is that key (so a
 *   session never lifts its key's caps), any other session itself;
 * - an inbox token is its inbox's token, and also a guest at its address;
 * - the operator token is the operator;
 * - no credential is a guest at its client address.
 *
 * @packageDocumentation
 */
import { isLoopbackHost } from '../../wire/defaults.ts';
import type { Principal } from './principal.ts';

/** A request's caller, as every bound counts it. */
export interface Caller {
  /**
   * The credential charged (`key:<hash>`, `session:<hash>`, `inbox:<hash>`,
   * `operator:<hash>`: hashes, never secrets), or null for no credential.
   */
  credential: string | null;
  /** The client address (behind a trusted balancer, the client's own). */
  address: string;
  /** A guest (no credential, or an inbox token) is charged to its address as well. */
  guest: boolean;
  /** One key naming the caller: its credential, or `addr:<address>` for no credential. */
  key: string;
}

/**
 * The caller of a request, from its principal and its client address.
 *
 * @example
 * ```ts
 * const caller = callerOf(c.var.principal, clientAddressOf(c));
 * limiter.hit(caller.key, limit, now);
 * ```
 */
export function callerOf(principal: Principal | null, address: string): Caller {
  const credential = credentialOf(principal);
  const guest = principal === null || principal.kind === 'anonymous' || principal.kind === 'inboxToken';
  return { credential, address, guest, key: credential ?? `addr:${address}` };
}

/** The credential a principal is charged to, or null for none. */
function credentialOf(principal: Principal | null): string | null {
  switch (principal?.kind) {
    case 'apiKey':
      return `key:${principal.keyHash}`;
    case 'session':
      return principal.key ? `key:${principal.key.hash}` : `session:${principal.tokenHash}`;
    case 'inboxToken':
      return `inbox:${principal.tokenHash}`;
    case 'operator':
      return `operator:${principal.tokenHash}`;
    default:
      return null;
  }
}

/** The keys a caller's share of a pool is charged to: its credential, and a guest's address. */
export function shareKeysOf(caller: Pick<Caller, 'credential' | 'address' | 'guest'>): string[] {
  const keys: string[] = [];
  if (caller.credential !== null) keys.push(`cred:${caller.credential}`);
  if (caller.guest) keys.push(`addr:${caller.address}`);
  return keys;
}

/**
 * Which inboxes a submission to an intake may reach: every active one, one
 * inbox (an inbox token), or one user's (an API key or a session).
 */
export type Reach = { kind: 'any' } | { kind: 'inbox'; inboxId: string } | { kind: 'user'; userId: string };

/**
 * Whether a service is shared: reachable from other machines, or behind a
 * balancer (`--trust-proxy`, `--smtp-proxy`), whatever address it is bound
 * to — a node bound to loopback behind HAProxy serves every client of the
 * balancer. Decided by the configuration, never by the bind address alone.
 */
export function isSharedService(config: { http: { host: string }; operations: { trustProxy: readonly string[]; smtpProxy: boolean | readonly string[] } }): boolean {
  const behindBalancer = config.operations.trustProxy.length > 0 || config.operations.smtpProxy !== false;
  return behindBalancer || !isLoopbackHost(config.http.host);
}

/**
 * Which inboxes a request to a provider API may reach, or null when the
 * service refuses it (no credential on a shared service: the provider's
 * authentication error). On a local service what an SDK sends is accepted
 * from anyone, as a mail server accepts any sender.
 */
export function reachOf(principal: Principal, shared: boolean): Reach | null {
  switch (principal.kind) {
    case 'anonymous':
      return shared ? null : { kind: 'any' };
    case 'operator':
      return { kind: 'any' };
    case 'inboxToken':
      return { kind: 'inbox', inboxId: principal.inboxId };
    default:
      return { kind: 'user', userId: principal.user.id };
  }
}
