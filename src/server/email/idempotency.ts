/**
 * Idempotency keys, as Resend honours them: a send repeated with the same
 * key and the same body within 24 hours answers the first send's answer and
 * sends nothing; the same key with another body, or while the first is
 * still in flight, is refused. Bounded: each caller keeps at most
 * {@link IdempotencyLimits.perCaller} keys and the node at most
 * {@link IdempotencyLimits.total} (the oldest forgotten first).
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';

/** The bounds of a key store. */
export interface IdempotencyLimits {
  /** Keys one caller keeps (its oldest forgotten first). */
  perCaller: number;
  /** Keys the node keeps. */
  total: number;
  /** How long a key is remembered, in ms. */
  ttlMs: number;
}

/** Resend's bounds: 24 hours; 1,000 keys a caller, 20,000 a node. */
export const IDEMPOTENCY_LIMITS: IdempotencyLimits = { perCaller: 1_000, total: 20_000, ttlMs: 24 * 60 * 60 * 1000 };

/** What a key says of a request. */
export type IdempotencyVerdict<T> =
  /** New: send, then {@link IdempotencyStore.settle} (or {@link IdempotencyStore.forget} on failure). */
  | { kind: 'new' }
  /** Seen with the same body: answer this again. */
  | { kind: 'replay'; answer: T }
  /** Seen with another body. */
  | { kind: 'mismatch' }
  /** The first request with this key is still in flight. */
  | { kind: 'in_flight' };

interface Entry<T> {
  caller: string;
  bodyHash: string;
  answer: T | null;
  at: number;
}

/** A node's store of idempotency keys (one per provider route factory: no module state). */
export interface IdempotencyStore<T> {
  claim(caller: string, key: string, body: string, now: number): IdempotencyVerdict<T>;
  settle(caller: string, key: string, answer: T): void;
  forget(caller: string, key: string): void;
}

/** Creates a bounded key store. */
export function createIdempotencyStore<T>(limits: IdempotencyLimits = IDEMPOTENCY_LIMITS): IdempotencyStore<T> {
  const entries = new Map<string, Entry<T>>();
  const perCaller = new Map<string, string[]>();
  const id = (caller: string, key: string) => `${caller}\n${key}`;
  const drop = (entryId: string) => {
    const entry = entries.get(entryId);
    if (!entry) return;
    entries.delete(entryId);
    const own = perCaller.get(entry.caller);
    const index = own?.indexOf(entryId) ?? -1;
    if (own && index >= 0) own.splice(index, 1);
    if (own?.length === 0) perCaller.delete(entry.caller);
  };
  const expire = (now: number) => {
    for (const [entryId, entry] of entries) {
      if (now - entry.at < limits.ttlMs && entries.size < limits.total) break;
      drop(entryId);
    }
  };
  return {
    claim(caller, key, body, now) {
      expire(now);
      const bodyHash = createHash('sha256').update(body).digest('hex');
      const entry = entries.get(id(caller, key));
      if (entry) {
        if (entry.bodyHash !== bodyHash) return { kind: 'mismatch' };
        return entry.answer === null ? { kind: 'in_flight' } : { kind: 'replay', answer: entry.answer };
      }
      const own = perCaller.get(caller) ?? [];
      while (own.length >= limits.perCaller && own[0] !== undefined) drop(own[0]);
      entries.set(id(caller, key), { caller, bodyHash, answer: null, at: now });
      own.push(id(caller, key));
      perCaller.set(caller, own);
      return { kind: 'new' };
    },
    settle(caller, key, answer) {
      const entry = entries.get(id(caller, key));
      if (entry) entry.answer = answer;
    },
    forget(caller, key) {
      drop(id(caller, key));
    },
  };
}
