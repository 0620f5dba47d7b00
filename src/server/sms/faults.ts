/**
 * Per-number SMS faults, kept in the delivery-fault table of the phone's
 * inbox (so every node applies them, and they go with the phone): the
 * enhanced status of the fault says which failure the providers report.
 * `5.1.1` is an invalid number (refused at once), `5.7.1` an unsubscribed
 * recipient (refused at once: Twilio's 21610), any other refusal an
 * undeliverable handset (accepted, then never delivered: Twilio reports
 * `undelivered` with 30003); a delay only holds the SMS that long.
 *
 * @packageDocumentation
 */

/** What an SMS to a faulty phone meets. */
export interface SmsFault {
  kind: 'none' | 'invalid' | 'unsubscribed' | 'undeliverable';
  delayMs: number;
}

/** The verdict of the fault table (`DeliveryFaults.take`), read as an SMS fault. */
export function smsFaultOf(verdict: { refusal: { code: number; text: string } | null; delayMs: number } | null): SmsFault {
  if (!verdict) return { kind: 'none', delayMs: 0 };
  const status = verdict.refusal ? /^(\d\.\d{1,3}\.\d{1,3})/.exec(verdict.refusal.text)?.[1] : undefined;
  if (!verdict.refusal) return { kind: 'none', delayMs: verdict.delayMs };
  if (status === '5.1.1') return { kind: 'invalid', delayMs: 0 };
  if (status === '5.7.1') return { kind: 'unsubscribed', delayMs: 0 };
  return { kind: 'undeliverable', delayMs: 0 };
}

/** Whether a phone's stored fault is the `unsubscribed` one (read without counting an attempt). */
export function isUnsubscribed(fault: { code: number | null; enhancedStatus: string | null } | null): boolean {
  return fault !== null && fault.code !== null && fault.enhancedStatus === '5.7.1';
}

/** Runs `store` now, or after `delayMs` in the background (an error is the logger's). */
export function storeAfter(delayMs: number, wait: (ms: number) => Promise<void>, store: () => Promise<unknown>, onError: (error: unknown) => void): Promise<void> {
  if (delayMs <= 0) return store().then(() => undefined);
  void wait(delayMs).then(store).catch(onError);
  return Promise.resolve();
}
