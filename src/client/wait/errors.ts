/**
 * The errors of the waits: {@link WaitTimeoutError} and {@link UnexpectedMessageError}.
 *
 * @packageDocumentation
 */
import type { MessageSummary } from '../../wire/schemas.ts';
import { InboxkitError } from '../core/errors.ts';
import type { ReceivedMessage } from '../message/received.ts';

/** A message a wait looked at and rejected, with the criteria it failed. */
export interface WaitMismatch {
  /** The message's summary. */
  message: MessageSummary;
  /** What did not match, e.g. `subject "Reset" did not match /Confirm/`. */
  failed: string[];
}

/** What a {@link WaitTimeoutError} carries. */
export interface WaitTimeoutInit {
  /** The criteria in words (see `describeCriteria`). */
  criteria: string;
  /** The inbox's address. */
  address: string;
  /** The timeout that ran out, in milliseconds. */
  timeout: number;
  /** Messages the wait looked at that did not match, oldest first. */
  received: MessageSummary[];
  /** The newest of them with the criteria each failed (at most 5). */
  mismatches: WaitMismatch[];
  /** Matching messages found before the time ran out (`waitForMessages` wanted more). */
  matched: ReceivedMessage[];
  /** How many matches were wanted. */
  wanted: number;
}

/**
 * A wait ran out of time. The message lists what did arrive (time, sender,
 * subject) and, for the newest candidates, which criterion failed; when nothing
 * arrived, it says so and what to check.
 */
export class WaitTimeoutError extends InboxkitError {
  override name = 'WaitTimeoutError';
  /** The criteria in words (see `describeCriteria`). */
  readonly criteria: string;
  /** The timeout that ran out, in milliseconds. */
  readonly timeout: number;
  /** Messages the wait looked at that did not match, oldest first. */
  readonly received: MessageSummary[];
  /** The newest non-matching messages with the criteria each failed (at most 5). */
  readonly mismatches: WaitMismatch[];
  /** Matching messages found before the time ran out (when `waitForMessages` wanted more). */
  readonly matched: ReceivedMessage[];

  /** Made by the waits; `message` is the full explanation. */
  constructor(message: string, init: WaitTimeoutInit) {
    super(message);
    this.criteria = init.criteria;
    this.timeout = init.timeout;
    this.received = init.received;
    this.mismatches = init.mismatches;
    this.matched = init.matched;
  }
}

/**
 * `expectNoMessage` saw a message that matches. `received` is that message
 * (whole, with `links()`, `otp()` …). (It is not called `message`: an error's
 * `message` is its text.)
 */
export class UnexpectedMessageError extends InboxkitError {
  override name = 'UnexpectedMessageError';
  /** The message that should not have arrived. */
  readonly received: ReceivedMessage;
  /** The criteria in words (see `describeCriteria`). */
  readonly criteria: string;

  /** Made by `expectNoMessage`. */
  constructor(message: string, received: ReceivedMessage, criteria: string) {
    super(message);
    this.received = received;
    this.criteria = criteria;
  }
}
