/**
 * How the SMTP intake applies delivery faults: at `RCPT TO` it counts the
 * attempt against the inbox's fault and refuses that one recipient (so the
 * other recipients of the same message, and every other inbox, are untouched);
 * a delay-only fault holds that inbox's copy only: the other recipients'
 * copies are stored and announced at once, the delayed one after its wait,
 * and the `250` (one reply for the whole message) once every copy is stored.
 *
 * @packageDocumentation
 */
import type { DeliveryFaults } from './table.ts';

/** The intake's side of the fault table. */
export interface IntakeFaultHook {
  /**
   * At `RCPT TO`, once the recipient's inbox is known: resolves with the error
   * to refuse it with (after the fault's delay), or `null` to accept it.
   * `envelope` is the transaction's envelope (a new object per transaction).
   */
  atRecipient(inboxId: string, envelope: object): Promise<(Error & { responseCode: number }) | null>;
  /** After DATA: the accepted recipient inboxes whose copy waits, with their waits in ms (then forgotten). */
  delaysOf(envelope: object): Map<string, number>;
  /** Waits `ms` (ends at once when the service closes). */
  wait(ms: number): Promise<void>;
}

/** The hook over a service's fault table; one that does nothing when the service has none. */
export function createIntakeFaultHook(faults: DeliveryFaults | null | undefined): IntakeFaultHook {
  const delays = new WeakMap<object, Map<string, number>>();
  return {
    async atRecipient(inboxId, envelope) {
      const verdict = (await faults?.take(inboxId)) ?? null;
      if (verdict === null) return null;
      if (verdict.refusal === null) {
        const held = delays.get(envelope) ?? new Map<string, number>();
        held.set(inboxId, Math.max(held.get(inboxId) ?? 0, verdict.delayMs));
        delays.set(envelope, held);
        return null;
      }
      await faults?.delay(verdict.delayMs);
      return Object.assign(new Error(verdict.refusal.text), { responseCode: verdict.refusal.code });
    },
    delaysOf(envelope) {
      const held = delays.get(envelope) ?? new Map<string, number>();
      delays.delete(envelope);
      return held;
    },
    wait: (ms) => faults?.delay(ms) ?? Promise.resolve(),
  };
}
