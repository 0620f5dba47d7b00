/**
 * The intake's words: what a channel hands in (a submission), what each
 * recipient meets (a check), and what came of it (an outcome). A channel is
 * SMTP, or one provider's API; it parses in its own wire shape, asks the
 * intake, and answers the outcome in its own wire shape.
 *
 * @packageDocumentation
 */
import type { Caller, Reach } from '../auth/caller.ts';

export type { Reach } from '../auth/caller.ts';
import type { InboxRecord, MessageRecord, NewMessage } from '../storage/contract/types.ts';

/** What kind of address a channel delivers to: an email inbox, or a phone (an inbox whose local part is its E.164 number). */
export type ChannelKind = 'email' | 'sms';

/** A channel: SMTP, or a provider's API (its registry id). */
export interface Channel {
  /** `smtp`, or the provider's id (`twilio`, `sns` …): stored with each copy's log line and counted in the metrics. */
  id: string;
  kind: ChannelKind;
  /**
   * Whether the channel accepts a message for a recipient whose fault says
   * "undeliverable" and drops it later (as SMS providers do: accepted, then a
   * failed status), rather than refusing the recipient at once (as SMTP does).
   */
  acceptsUndeliverable: boolean;
}

/** What a fault stands for, whatever the channel: each provider says it in its own words. */
export type FaultClass =
  /** Enhanced status 5.1.1: no such number or mailbox. */
  | 'invalid'
  /** Enhanced status 5.7.1: the recipient opted out (SMS) or refuses this sender. */
  | 'opted_out'
  /** Any other 5xx: the recipient exists but cannot be delivered to. */
  | 'undeliverable'
  /** A 4xx: try again later (greylisting, a full mailbox). */
  | 'temporary';

/** A fault a recipient met: its class and its SMTP reply. */
export interface RecipientFault {
  class: FaultClass;
  /** The SMTP reply code (400–599). */
  code: number;
  /** The reply text, its enhanced status first (`5.1.1 …`). */
  text: string;
}

/** What one recipient meets, decided by {@link Intake.check}. */
export type RecipientCheck =
  /** No inbox this caller may reach has the address (an unknown address and another caller's look alike). */
  | { recipient: string; verdict: 'unknown' }
  /** Refused at once for its fault. */
  | { recipient: string; verdict: 'refused'; inbox: InboxRecord; fault: RecipientFault }
  /** Accepted, never delivered (a channel that accepts undeliverable recipients). */
  | { recipient: string; verdict: 'undeliverable'; inbox: InboxRecord; fault: RecipientFault }
  /** Accepted: its copy is stored after `delayMs` (0: at once). */
  | { recipient: string; verdict: 'accepted'; inbox: InboxRecord; delayMs: number };

/** A check that was accepted. */
export type AcceptedCheck = Extract<RecipientCheck, { verdict: 'accepted' }>;

/** The content of a submission: MIME to parse (and sanitize), or a message already built (an SMS). */
export type SubmissionContent =
  | { kind: 'mime'; raw: Uint8Array }
  | { kind: 'message'; build(receivedAt: number): NewMessage };

/** What a channel hands in. */
export interface Submission {
  channel: Channel;
  /** Who sent it, as every bound counts callers (`callerOf`). */
  caller: Caller;
  /** Which inboxes it may reach. */
  reach: Reach;
  /** The envelope sender (`''` for the null sender). */
  envelopeFrom: string;
  /** The recipients, in the order given: addresses, or E.164 numbers on an SMS channel. */
  recipients: string[];
  /** The client address recorded in each copy's envelope. */
  clientAddress: string | null;
  /** The HELO name recorded in each copy's envelope (SMTP only). */
  helo: string | null;
  content: SubmissionContent;
  /** Names this submission in log lines (an SMTP session id, a provider's message id). */
  logId: string;
}

/** What came of one recipient. */
export type RecipientOutcome =
  | { recipient: string; status: 'unknown' }
  | { recipient: string; status: 'refused'; inboxId: string; fault: RecipientFault }
  | { recipient: string; status: 'undelivered'; inboxId: string; fault: RecipientFault }
  /** Accepted, its copy stored after a delay (in the background). */
  | { recipient: string; status: 'queued'; inboxId: string; delayMs: number }
  | { recipient: string; status: 'delivered'; inboxId: string; message: MessageRecord };

/** What came of a submission: one outcome per recipient, in the order given. */
export interface IntakeOutcome {
  recipients: RecipientOutcome[];
  /** The copies stored before the answer (delayed ones are not among them). */
  stored: MessageRecord[];
  /** Settles once the delayed copies are stored (or failed, logged): at once when there are none. */
  settled: Promise<void>;
}
