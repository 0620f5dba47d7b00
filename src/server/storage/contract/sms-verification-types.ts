/**
 * The SMS verification aggregate of the store (issue 39): the state of the
 * verify APIs the service imitates (Twilio Verify, Vonage Verify), kept in the
 * store so a check may land on any node.
 *
 * @packageDocumentation
 */

/**
 * A pending Twilio Verify verification as stored: one per service and number
 * (its phone's inbox), gone once approved, with its inbox, or at `expiresAt`.
 */
export interface SmsVerificationRow {
  /** Twilio's `VE…` sid. */
  sid: string;
  /** The phone's inbox. */
  inboxId: string;
  serviceSid: string;
  accountSid: string;
  /** The phone number, E.164. */
  to: string;
  channel: string;
  code: string;
  /** Checks made so far. */
  checks: number;
  /** When each send within the code's life was made, epoch milliseconds. */
  sends: number[];
  createdAt: number;
  updatedAt: number;
  /** When the code stops being valid, epoch milliseconds. */
  expiresAt: number;
}

/** A Verify service an app made (`POST /v2/Services`), charged to its caller. */
export interface SmsVerifyServiceRow {
  /** Twilio's `VA…` sid. */
  sid: string;
  /** Who made it (`user:<id>`, `inbox:<id>`, `operator`, `anonymous`): the bound counts per owner. */
  ownerKey: string;
  friendlyName: string;
  codeLength: number;
  createdAt: number;
}

/** How a verification is looked up: by its number or by its sid, within its service. */
export type SmsVerificationKey = { serviceSid: string; to: string } | { serviceSid: string; sid: string };

/** What a change of a verification writes (`write`: a row to store, `null` to delete it, absent to leave it) and answers. */
export interface SmsVerificationChange<T> {
  write?: SmsVerificationRow | null;
  result: T;
}

/** The SMS verification aggregate of the store: Twilio and Vonage Verify state, shared by every node of the store. */
export interface SmsVerificationStore {
  /** The live verification of `key` (an expired one reads as none), or null. */
  findSmsVerification(key: SmsVerificationKey, now: number): Promise<SmsVerificationRow | null>;
  /**
   * Reads the live verification of `key` and writes what `change` makes of it,
   * atomically across nodes; resolves with `change`'s result. A written row
   * replaces its service and number's; its inbox then keeps at most
   * `maxPerInbox` verifications (the oldest go), and expired ones are deleted.
   */
  changeSmsVerification<T>(key: SmsVerificationKey, now: number, maxPerInbox: number, change: (current: SmsVerificationRow | null) => SmsVerificationChange<T>): Promise<T>;
  /** Stores a service; its owner keeps at most `maxPerOwner` (the oldest go). */
  putSmsVerifyService(service: SmsVerifyServiceRow, maxPerOwner: number): Promise<void>;
  findSmsVerifyService(sid: string): Promise<SmsVerifyServiceRow | null>;
}
