/**
 * The SMTP replies of injected delivery faults: the RFC 3463 enhanced status
 * code chosen for each reply code, and the reply text.
 *
 * @packageDocumentation
 */

/**
 * Enhanced status codes (RFC 3463) for the reply codes a fault is usually
 * given, by what RFC 5321 says each reply means:
 * - 421 "service not available" → 4.3.2 (system not accepting network messages);
 * - 450 "mailbox unavailable (busy or temporarily blocked)" → 4.2.0 (other mailbox status);
 * - 451 "local error in processing" → 4.3.0 (other mail system status);
 * - 452 "insufficient system storage" → 4.3.1 (mail system full);
 * - 550 and 554: a refusal on the receiver's decision, not an unknown mailbox
 *   (the intake answers a real unknown address with 5.1.1) → 5.7.1 (delivery not
 *   authorized, message refused);
 * - 551 "user not local" → 5.1.6 (mailbox has moved);
 * - 552 "exceeded storage allocation" → 5.2.2 (mailbox full);
 * - 553 "mailbox name not allowed" → 5.1.3 (bad destination mailbox address syntax).
 * Any other code gets its class's "other or undefined status", 4.0.0 or 5.0.0.
 */
const ENHANCED_BY_CODE: Readonly<Record<number, string>> = {
  421: '4.3.2',
  450: '4.2.0',
  451: '4.3.0',
  452: '4.3.1',
  550: '5.7.1',
  551: '5.1.6',
  552: '5.2.2',
  553: '5.1.3',
  554: '5.7.1',
};

/** The enhanced status code a refusal with `code` carries when none was given. */
export function defaultEnhancedStatus(code: number): string {
  return ENHANCED_BY_CODE[code] ?? (code < 500 ? '4.0.0' : '5.0.0');
}

/** The reply text when none was given: says it was asked for, and what a sender should do. */
export function defaultFaultMessage(code: number): string {
  return code < 500
    ? 'Delivery to this inbox is deferred on request (inboxkit delivery fault); try again later'
    : 'Delivery to this inbox is refused on request (inboxkit delivery fault)';
}
