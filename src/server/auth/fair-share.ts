/**
 * Fair shares of a bounded pool (the spam check's scans, the authentication
 * check's runs): the pool has a total, and each caller may hold at most its
 * share of it, so that one caller can use up only its own share and never
 * starve the others. A slot is taken when the work starts and given back when
 * it ends, whichever way; over a bound the request is a 429 `limit_reached`
 * whose message names the bound, with `Retry-After`.
 *
 * Who the caller is: a credential that the operator hands out (an API key, a
 * session made from one, the operator token) is charged to that credential
 * alone, wherever it calls from. A guest (no credential, or an inbox token,
 * which any guest can mint by creating an inbox) is charged to its credential
 * and to its client address, so that minting tokens gains a guest nothing.
 * Guests and users on one address (every local test shares `127.0.0.1`) so
 * never take from each other's shares.
 *
 * Counted per node: what runs out (the scanner's connections, the CPU) is the
 * node's.
 *
 * @packageDocumentation
 */
import type { Principal } from './principal.ts';
import { callerOf, shareKeysOf } from './caller.ts';
import type { Caller } from './caller.ts';
import { HttpError } from '../http/errors.ts';

/** Who holds a slot: the caller, as every bound counts callers (`callerOf`). */
export type ShareCaller = Pick<Caller, 'credential' | 'address' | 'guest'>;

/** The bounds of one pool. */
export interface FairShareLimits {
  /** What the pool's slots are, in the plural, as the errors name it: `spam checks`. */
  name: string;
  /** Slots of the whole pool on this node. */
  total: number;
  /** Slots one caller (credential, or guest address) may hold at once. */
  perCaller: number;
  /** Seconds the refusal's `Retry-After` says. @defaultValue 1 */
  retryAfterSeconds?: number;
}

/** A pool with fair shares. */
export interface FairShare {
  /**
   * Takes a slot for `caller`.
   *
   * @returns The function that gives the slot back (idempotent).
   * @throws HttpError `limit_reached` (429, with Retry-After) naming the bound that is full.
   */
  acquire(caller: ShareCaller): () => void;
  /** Slots held now, for tests and logs. */
  inUse(): number;
}

/** The caller of a request, from its principal and its client address: `callerOf`, under the name the shares have always used. */
export const shareCallerOf: (principal: Principal, address: string) => ShareCaller = callerOf;

/**
 * Creates a pool with fair shares.
 *
 * @example
 * ```ts
 * const scans = createFairShare({ name: 'spam checks', total: 16, perCaller: 8 });
 * const release = scans.acquire(shareCallerOf(c.var.principal, clientAddressOf(c)));
 * try { await scan(); } finally { release(); }
 * ```
 */
export function createFairShare(limits: FairShareLimits): FairShare {
  const held = new Map<string, number>();
  let total = 0;
  const retryAfter = { 'Retry-After': String(limits.retryAfterSeconds ?? 1) };
  const bump = (key: string, by: number): void => {
    const n = (held.get(key) ?? 0) + by;
    if (n <= 0) held.delete(key);
    else held.set(key, n);
  };
  return {
    acquire(caller) {
      const keys = shareKeysOf(caller);
      for (const key of keys) {
        if ((held.get(key) ?? 0) < limits.perCaller) continue;
        const who = key.startsWith('addr:') ? `guests at ${caller.address}` : 'this credential';
        throw new HttpError(
          'limit_reached',
          `${limits.perCaller} ${limits.name} of ${who} are already running, the share one caller may hold (of ${limits.total} per node); try again when one has answered.`,
          retryAfter,
        );
      }
      if (total >= limits.total) {
        throw new HttpError('limit_reached', `${limits.total} ${limits.name} are already running on this node, its bound; try again when one has answered.`, retryAfter);
      }
      for (const key of keys) bump(key, 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const key of keys) bump(key, -1);
        total -= 1;
      };
    },
    inUse: () => total,
  };
}
