/**
 * Caps on what one caller may hold open at once on this node: event streams
 * per credential and per client address. A stream takes a slot when it opens
 * and gives it back when it closes, whichever way; over a cap the request is a
 * 429 `limit_reached` that names the cap and the flag that raises it.
 *
 * Counted per node, on purpose: what runs out (file descriptors, memory,
 * timers) is the node's.
 *
 * @packageDocumentation
 */
import { ownCapsOf } from './principal.ts';
import type { Principal } from './principal.ts';
import { callerOf } from './caller.ts';
import { HttpError } from '../http/errors.ts';

/** The stream caps of a node; `null` turns one off. */
export interface StreamCapLimits {
  /** Open streams per credential (API key, session, inbox token, operator token). */
  perCredential: number | null;
  /** Open streams per client address, whatever the credentials. */
  perAddress: number | null;
}

/** A node's stream slots. */
export interface StreamCaps {
  /**
   * Takes a slot for a stream opened with `credential` from `address`.
   *
   * @param credential - A key naming the credential (its hash, never the secret), or null for none.
   * @param perCredential - The credential's own cap (an API key's `maxStreams`), replacing the node's.
   * @returns The function that gives the slot back (idempotent).
   * @throws HttpError `limit_reached` (429) naming the cap that is full.
   */
  acquire(credential: string | null, address: string, perCredential?: number): () => void;
  /** Streams open now, for tests and logs. */
  open(): number;
}

/**
 * Creates the stream slots of a node.
 *
 * @example
 * ```ts
 * const caps = createStreamCaps({ perCredential: 128, perAddress: 512 });
 * const release = caps.acquire(`inbox:${tokenHash}`, '127.0.0.1');
 * // … when the stream ends:
 * release();
 * ```
 */
export function createStreamCaps(limits: StreamCapLimits): StreamCaps {
  const byCredential = new Map<string, number>();
  const byAddress = new Map<string, number>();
  let total = 0;
  const bump = (map: Map<string, number>, key: string, by: number): void => {
    const n = (map.get(key) ?? 0) + by;
    if (n <= 0) map.delete(key);
    else map.set(key, n);
  };
  return {
    acquire(credential, address, own) {
      const cap = own ?? limits.perCredential;
      if (cap !== null && credential !== null && (byCredential.get(credential) ?? 0) >= cap) {
        const where = own === undefined ? 'streams per credential; inboxkit serve --max-streams-per-credential' : 'this API key\'s own cap; inboxkit keys create --max-streams';
        throw new HttpError(
          'limit_reached',
          `Too many open event streams for this credential: the cap is ${cap} (${where}). Close a stream, or raise the cap.`,
          { 'Retry-After': '1' },
        );
      }
      if (limits.perAddress !== null && (byAddress.get(address) ?? 0) >= limits.perAddress) {
        throw new HttpError(
          'limit_reached',
          `Too many open event streams from ${address}: the cap is ${limits.perAddress} (streams per client address; inboxkit serve --max-streams-per-address). Close a stream, or raise the cap.`,
          { 'Retry-After': '1' },
        );
      }
      if (credential !== null) bump(byCredential, credential, 1);
      bump(byAddress, address, 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (credential !== null) bump(byCredential, credential, -1);
        bump(byAddress, address, -1);
        total -= 1;
      };
    },
    open: () => total,
  };
}

/** The key a principal's streams are counted under: its caller's credential (`callerOf`), never the secret; null when anonymous. */
export function credentialKeyOf(principal: Principal): string | null {
  return callerOf(principal, '').credential;
}

/** A principal's own cap of open streams (its API key's `maxStreams`), or undefined for the node's. */
export function ownStreamCapOf(principal: Principal): number | undefined {
  return ownCapsOf(principal)?.maxStreams;
}
