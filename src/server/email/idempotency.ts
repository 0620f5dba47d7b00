/**
 * Idempotency keys, as Resend honours them: a send repeated with the same
 * key and the same body within 24 hours answers the first send's answer and
 * sends nothing; the same key with another body, or while the first is
 * still in flight, is refused. Kept in the service's store, so a repeat
 * through any node of a team service is answered alike. Bounded: each
 * caller keeps at most {@link IDEMPOTENCY_LIMITS}`.perOwner` keys and the
 * store at most `.total` (the oldest forgotten first).
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';

/** The bounds of the keys: how many per caller and in all, and for how long. */
export interface IdempotencyLimits {
  /** Keys one caller keeps (its oldest forgotten first). */
  perOwner: number;
  /** Keys the store keeps. */
  total: number;
  /** How long a key is remembered, in ms. */
  ttlMs: number;
}

/** Resend's bounds: 24 hours; 1,000 keys a caller, 20,000 in all. */
export const IDEMPOTENCY_LIMITS: IdempotencyLimits = { perOwner: 1_000, total: 20_000, ttlMs: 24 * 60 * 60 * 1000 };

/** What a key says of a request. */
export type IdempotencyVerdict<T> =
  /** New: send, then {@link IdempotentSends.settle} (or {@link IdempotentSends.forget} on failure). */
  | { kind: 'new' }
  /** Seen with the same body: answer this again. */
  | { kind: 'replay'; answer: T }
  /** Seen with another body. */
  | { kind: 'mismatch' }
  /** The first request with this key is still in flight. */
  | { kind: 'in_flight' };

/** The store's part the keys use (`Store` has it). */
export interface IdempotencyKeyStorage {
  claimIdempotencyKey(ref: { owner: string; key: string }, bodyHash: string, now: number, bounds: IdempotencyLimits): Promise<{ kind: 'new' } | { kind: 'seen'; bodyHash: string; answer: string | null }>;
  settleIdempotencyKey(ref: { owner: string; key: string }, answer: string): Promise<void>;
  forgetIdempotencyKey(ref: { owner: string; key: string }): Promise<void>;
}

/** A route's idempotent sends over the store; answers are kept as JSON. */
export interface IdempotentSends<T> {
  claim(caller: string, key: string, body: string, now: number): Promise<IdempotencyVerdict<T>>;
  settle(caller: string, key: string, answer: T): Promise<void>;
  forget(caller: string, key: string): Promise<void>;
}

/** The idempotent sends of a route, over the service's store. */
export function createIdempotentSends<T>(store: IdempotencyKeyStorage, limits: IdempotencyLimits = IDEMPOTENCY_LIMITS): IdempotentSends<T> {
  return {
    async claim(caller, key, body, now) {
      const bodyHash = createHash('sha256').update(body).digest('hex');
      const claim = await store.claimIdempotencyKey({ owner: caller, key }, bodyHash, now, limits);
      if (claim.kind === 'new') return claim;
      if (claim.bodyHash !== bodyHash) return { kind: 'mismatch' };
      return claim.answer === null ? { kind: 'in_flight' } : { kind: 'replay', answer: JSON.parse(claim.answer) as T };
    },
    settle: (caller, key, answer) => store.settleIdempotencyKey({ owner: caller, key }, JSON.stringify(answer)),
    forget: (caller, key) => store.forgetIdempotencyKey({ owner: caller, key }),
  };
}
