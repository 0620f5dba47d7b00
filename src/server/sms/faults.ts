/**
 * Per-number SMS faults are the delivery faults of the phone's inbox (so
 * every node applies them, and they go with the phone), read by the intake
 * like any fault: enhanced status `5.1.1` an invalid number (refused at
 * once), `5.7.1` an opted-out recipient (refused at once: Twilio's 21610),
 * any other refusal an undeliverable handset (accepted, then never
 * delivered: Twilio reports `undelivered` with 30003); a delay holds the SMS.
 *
 * @packageDocumentation
 */

/** Whether a phone's stored fault is the opted-out one (read without counting an attempt). */
export function isUnsubscribed(fault: { code: number | null; enhancedStatus: string | null } | null): boolean {
  return fault !== null && fault.code !== null && fault.enhancedStatus === '5.7.1';
}
