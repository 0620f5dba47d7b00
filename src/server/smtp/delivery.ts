/**
 * The SMTP channel of the intake, apart from the SMTP conversation
 * (`listener.ts`): at `RCPT TO` each recipient is checked by the intake
 * (reached, then its fault: a refusal is that recipient's reply, a delay
 * holds its copy), and after `DATA` the intake delivers to the accepted
 * ones, answering 250 once every copy is stored.
 *
 * @packageDocumentation
 */
import type { SMTPServerSession } from 'smtp-server';
import type { ForwardQueue } from '../forward/forwarder.ts';
import type { DeliveryFaults } from '../faults/table.ts';
import { callerOf } from '../auth/caller.ts';
import { createIntake } from '../intake/intake.ts';
import type { Intake } from '../intake/intake.ts';
import type { IntakeLogger, StoreObserver } from '../intake/store-copies.ts';
import type { AcceptedCheck, Channel } from '../intake/types.ts';
import type { PrepareOptions, PreparedMessage } from '../mail/prepare.ts';
import type { EventBus } from '../events/types.ts';
import type { Store } from '../storage/contract/types.ts';

export type { IntakeLogger } from '../intake/store-copies.ts';

/** The SMTP channel: email inboxes, a refused recipient refused at `RCPT TO`. */
export const SMTP_CHANNEL: Channel = { id: 'smtp', kind: 'email', acceptsUndeliverable: false };

/** Limits of the SMTP intake. */
export interface IntakeLimits {
  /**
   * Largest message accepted, in bytes; announced with SIZE, refused with 552.
   * @defaultValue 10 MiB
   */
  maxMessageBytes: number;
  /**
   * Recipients per message; the next RCPT gets 452.
   * @defaultValue 100
   */
  maxRecipients: number;
  /**
   * Messages kept per inbox: once over it, the oldest are evicted after each
   * delivery (mail is never refused for a full inbox). `null`: no limit.
   * @defaultValue null
   */
  maxMessagesPerInbox: number | null;
  /**
   * Bytes of mail (raw sizes) the store may hold: past it, the oldest messages
   * of the largest inboxes are evicted after each delivery. `null`: no cap.
   * @defaultValue null
   */
  maxStoredBytes?: number | null;
}

/** Everything the SMTP intake depends on, injected. */
export interface IntakeDeps {
  store: Store;
  bus: EventBus;
  logger: IntakeLogger;
  now(): number;
  limits: IntakeLimits;
  /** Where copies for forwarding inboxes go; `null` when the server has no relay. */
  forwarder: ForwardQueue | null;
  /** Per-inbox delivery faults to honour (an extension); none when absent. */
  faults?: DeliveryFaults | null;
  /**
   * Parses a received message and sanitizes its HTML (a `MailPool`'s `prepare`
   * moves large messages off the event loop).
   * @defaultValue `prepareMessage`, on the calling thread
   */
  prepare?: (raw: Uint8Array, options: PrepareOptions) => Promise<PreparedMessage>;
  /**
   * The service's intake, shared with its other channels; without one, the
   * SMTP intake makes its own from the parts above.
   */
  intake?: Intake;
  /** Told of the copies stored (the service's metrics). */
  observer?: StoreObserver | null;
}

/** An SMTP reply carried by an error (smtp-server reads `responseCode`). */
export function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}

/** What `RCPT TO` decided for one recipient: null (accepted), or the refusal and whether it was a fault. */
export type RecipientDecision = { error: Error & { responseCode: number }; reason: 'fault' | 'unknown_recipient' } | null;

/**
 * The SMTP channel over an intake: `recipient` decides a `RCPT TO` (and
 * remembers an accepted one with its transaction's envelope), `deliver`
 * delivers a collected message to the recipients its transaction accepted,
 * resolving with the 250 reply text or rejecting with an SMTP error.
 */
export function createDelivery(deps: IntakeDeps, parseTimeoutMs: number) {
  const intake =
    deps.intake ??
    createIntake({
      store: deps.store,
      bus: deps.bus,
      logger: deps.logger,
      now: deps.now,
      limits: deps.limits,
      forwarder: deps.forwarder,
      faults: deps.faults,
      prepare: deps.prepare,
      parseTimeoutMs,
      observer: deps.observer,
    });
  const accepted = new WeakMap<object, AcceptedCheck[]>();

  const recipient = async (address: string, envelope: object): Promise<RecipientDecision> => {
    const check = await intake.check(SMTP_CHANNEL, { kind: 'any' }, address);
    if (check.verdict === 'unknown') {
      return { error: smtpError(550, `5.1.1 <${address}>: no active inbox with this address; create it first (POST /api/v1/inboxes)`), reason: 'unknown_recipient' };
    }
    if (check.verdict !== 'accepted') return { error: smtpError(check.fault.code, check.fault.text), reason: 'fault' };
    accepted.set(envelope, [...(accepted.get(envelope) ?? []), check]);
    return null;
  };

  const deliver = async (raw: Uint8Array, session: SMTPServerSession): Promise<string> => {
    const checks = accepted.get(session.envelope) ?? [];
    accepted.delete(session.envelope);
    const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const address = session.remoteAddress || null;
    const submission = {
      channel: SMTP_CHANNEL,
      caller: callerOf(null, address ?? 'unknown'),
      reach: { kind: 'any' } as const,
      envelopeFrom,
      recipients: checks.map((c) => c.recipient),
      clientAddress: address,
      helo: session.hostNameAppearsAs || null,
      content: { kind: 'mime', raw } as const,
      logId: session.id,
    };
    // Looked up again: an inbox may have been deleted or expired since RCPT.
    const { stored } = await intake.deliver(submission, checks, { delayed: 'hold', recheck: true });
    if (stored.length === 0) {
      throw smtpError(550, '5.1.1 None of the recipients has an active inbox any more (deleted or expired while the message was being sent); nothing was stored');
    }
    deps.logger.info({ sessionId: session.id, messageIds: stored.map((s) => s.id), size: raw.byteLength }, 'smtp: message stored');
    return `2.0.0 OK: stored as ${stored.map((s) => s.id).join(', ')}`;
  };

  return { recipient, deliver, intake };
}
