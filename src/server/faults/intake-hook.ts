/**
 * How the SMTP intake applies delivery faults: at `RCPT TO` it counts the
 * attempt against the inbox's fault and refuses that one recipient (so the
 * other recipients of the same message, and every other inbox, are untouched);
 * a delay-only fault holds the `250` after DATA instead.
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
  /** Before the `250` after DATA: waits the longest delay of the transaction's accepted faulty recipients. */
  beforeAccept(envelope: object): Promise<void>;
}

/** The hook over a server's fault table; one that does nothing when the server has none. */
export function createIntakeFaultHook(faults: DeliveryFaults | null | undefined): IntakeFaultHook {
  const delays = new WeakMap<object, number>();
  return {
    async atRecipient(inboxId, envelope) {
      const verdict = faults?.take(inboxId) ?? null;
      if (verdict === null) return null;
      if (verdict.refusal === null) {
        delays.set(envelope, Math.max(delays.get(envelope) ?? 0, verdict.delayMs));
        return null;
      }
      await faults?.delay(verdict.delayMs);
      return Object.assign(new Error(verdict.refusal.text), { responseCode: verdict.refusal.code });
    },
    async beforeAccept(envelope) {
      const ms = delays.get(envelope) ?? 0;
      delays.delete(envelope);
      if (ms > 0) await faults?.delay(ms);
    },
  };
}
