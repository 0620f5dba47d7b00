/**
 * The bounds on SMTP AUTH guesses. On one connection, a few failed attempts
 * and the connection ends (421). Across connections, each client address
 * (behind a balancer speaking the PROXY protocol, the client's own) is charged
 * its failures within a window: every AUTH from an address with failures
 * waits its turn, spaced by a delay that doubles with each failure up to a
 * ceiling, so opening more connections gains a guesser nothing; an address
 * whose queue of waiting attempts already reaches past the ceiling is told 421
 * at once. A success does not wipe the address's failures (a guesser holding
 * one good key could otherwise reset its count).
 *
 * @packageDocumentation
 */

/** The bounds on failed SMTP AUTH attempts. */
export interface AuthLimits {
  /**
   * Failed attempts one connection may make; the last is answered 421 and the connection closed.
   * @defaultValue 3
   */
  maxFailuresPerConnection: number;
  /**
   * The wait before the next AUTH of an address after its first failure in the window;
   * it doubles with each further failure. 0: no wait (the per-connection bound still holds).
   * @defaultValue 250
   */
  failureDelayMs: number;
  /**
   * The longest wait between two AUTH checks of one address, and the furthest ahead an attempt may be queued.
   * @defaultValue 30_000
   */
  maxFailureDelayMs: number;
  /**
   * How long a failure counts against its address.
   * @defaultValue 600_000 (10 minutes)
   */
  failureWindowMs: number;
  /**
   * Addresses tracked at once; past it the one whose last attempt is oldest is forgotten.
   * @defaultValue 10_000
   */
  maxAddresses: number;
}

/** The defaults of {@link AuthLimits}. */
export const DEFAULT_AUTH_LIMITS: AuthLimits = { maxFailuresPerConnection: 3, failureDelayMs: 250, maxFailureDelayMs: 30_000, failureWindowMs: 600_000, maxAddresses: 10_000 };

/** Failures kept per address: past the point where the delay has reached its ceiling, more tell nothing. */
const MAX_FAILURES_KEPT = 64;

/** An attempt's turn: wait `waitMs`, then check; or a refusal to answer with 421. */
export type AuthTurn = { waitMs: number } | { refusal: string };

/** The per-address side of the bounds. */
export interface AuthThrottle {
  /** Takes the next turn of `address` for one AUTH check (reserving it), or refuses when the address's queue is full. */
  turn(address: string): AuthTurn;
  /** Charges a failed attempt to `address`. */
  failed(address: string): void;
  /** The wait an AUTH from `address` would have now, for tests and logs. */
  delayOf(address: string): number;
}

interface AddressRecord {
  /** Times of the failures within the window, oldest first. */
  failures: number[];
  /** The time of the last turn handed out. */
  lastTurnAt: number;
}

/**
 * Creates the per-address throttle of one node's SMTP intake.
 *
 * @example
 * ```ts
 * const throttle = createAuthThrottle(DEFAULT_AUTH_LIMITS);
 * const turn = throttle.turn(session.remoteAddress);
 * ```
 */
export function createAuthThrottle(limits: AuthLimits, now: () => number = Date.now): AuthThrottle {
  const byAddress = new Map<string, AddressRecord>();

  const recordOf = (address: string): AddressRecord => {
    const at = now();
    let record = byAddress.get(address);
    if (record) {
      byAddress.delete(address);
      while (record.failures.length > 0 && (record.failures[0] ?? 0) <= at - limits.failureWindowMs) record.failures.shift();
    } else {
      record = { failures: [], lastTurnAt: Number.NEGATIVE_INFINITY };
    }
    // Re-inserted last: the Map's first entry is the least recently seen address.
    byAddress.set(address, record);
    if (byAddress.size > limits.maxAddresses) byAddress.delete(byAddress.keys().next().value as string);
    return record;
  };
  const spacing = (failures: number): number =>
    failures === 0 || limits.failureDelayMs <= 0 ? 0 : Math.min(limits.failureDelayMs * 2 ** Math.min(failures - 1, 30), limits.maxFailureDelayMs);

  return {
    turn(address) {
      const record = recordOf(address);
      const at = now();
      const slot = Math.max(at, record.lastTurnAt + spacing(record.failures.length));
      if (slot - at > limits.maxFailureDelayMs) {
        return {
          refusal: `4.7.0 Too many failed AUTH attempts from your address ${address} (${record.failures.length} in ${Math.round(limits.failureWindowMs / 1000)} s): try again in ${Math.ceil((slot - at) / 1000)} s`,
        };
      }
      record.lastTurnAt = slot;
      return { waitMs: slot - at };
    },
    failed(address) {
      const record = recordOf(address);
      record.failures.push(now());
      if (record.failures.length > MAX_FAILURES_KEPT) record.failures.shift();
    },
    delayOf(address) {
      const record = byAddress.get(address);
      if (!record) return 0;
      return Math.max(0, record.lastTurnAt + spacing(record.failures.length) - now());
    },
  };
}
