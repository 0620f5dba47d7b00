/**
 * The one intake every channel calls: SMTP, each SMS provider's API, each
 * email provider's API. A channel parses in its own wire shape, then:
 * guard (its own) → {@link Intake.check} each recipient (reach, then its
 * fault) → {@link Intake.deliver} (prepare once, store one copy per inbox at
 * once or after its delay, publish after commit) → answers the outcome in
 * its own wire shape. {@link Intake.accept} does both steps for a channel
 * that has the whole submission at once; SMTP checks at `RCPT TO` and
 * delivers after `DATA`.
 *
 * @packageDocumentation
 */
import type { DeliveryFaults, FaultVerdict } from '../faults/table.ts';
import { prepareMessage } from '../mail/prepare.ts';
import type { PrepareOptions, PreparedMessage } from '../mail/prepare.ts';
import type { MessageEnvelope, MessageRecord, NewMessage } from '../storage/contract/types.ts';
import { normaliseLineEndings } from './line-endings.ts';
import { reachRecipient } from './reach.ts';
import { createStoreStep } from './store-copies.ts';
import type { CopyTarget, StoreStepDeps } from './store-copies.ts';
import type { AcceptedCheck, Channel, FaultClass, IntakeOutcome, Reach, RecipientCheck, RecipientFault, RecipientOutcome, Submission } from './types.ts';

/** Everything the intake depends on, injected: the store step's parts, and these. */
export interface IntakeDeps extends StoreStepDeps {
  /** Per-inbox delivery faults to honour; none when absent. */
  faults?: DeliveryFaults | null | undefined;
  /**
   * Parses a MIME message and sanitizes its HTML (a `MailPool`'s `prepare`
   * moves large messages off the event loop).
   * @defaultValue `prepareMessage`, on the calling thread
   */
  prepare?: ((raw: Uint8Array, options: PrepareOptions) => Promise<PreparedMessage>) | undefined;
  /**
   * How long parsing one message may take before the fallback reading is stored.
   * @defaultValue 10_000
   */
  parseTimeoutMs?: number | undefined;
}

/** What {@link Intake.deliver} does with copies that wait for a fault's delay. */
export interface DeliverOptions {
  /** `hold`: wait for them before resolving (SMTP's 250 comes once every copy is stored); `background`: resolve at once, store them later. */
  delayed: 'hold' | 'background';
  /** Look each recipient's inbox up again first (time passed since the check: an inbox may have gone). */
  recheck: boolean;
}

/** What {@link Intake.deliver} resolves with. */
export interface Delivered {
  /** The copies stored (with `hold`, the delayed ones too). */
  stored: MessageRecord[];
  /** Accepted recipients whose copy is stored later (with `background`). */
  queued: AcceptedCheck[];
  /** Settles once the queued copies are stored (or failed, logged): at once when none are. */
  settled: Promise<void>;
}

/** The intake of a service. */
export interface Intake {
  /** What one recipient meets: reached or not, then its fault (counted as one attempt; a refusal waits the fault's delay first). */
  check(channel: Channel, reach: Reach, recipient: string): Promise<RecipientCheck>;
  /** Prepares the content once and stores a copy per accepted inbox, at once or after its delay. */
  deliver(submission: Submission, accepted: readonly AcceptedCheck[], options: DeliverOptions): Promise<Delivered>;
  /** Checks every recipient, then delivers to those accepted (delayed copies in the background): one outcome per recipient. */
  accept(submission: Submission): Promise<IntakeOutcome>;
  /** Deliveries waiting for a delay in the background. */
  pending(): number;
  /** Ends every delay in progress (waiting copies are stored at once) and waits for the background deliveries. */
  close(): Promise<void>;
}

/** The class of a fault's reply, from its enhanced status (or its code). */
function classOf(refusal: { code: number; text: string }): FaultClass {
  const status = /^(\d\.\d{1,3}\.\d{1,3})/.exec(refusal.text)?.[1];
  if (refusal.code < 500) return 'temporary';
  if (status === '5.1.1') return 'invalid';
  if (status === '5.7.1') return 'opted_out';
  return 'undeliverable';
}

/** A check from a fault verdict, for a channel. */
function verdictCheck(channel: Channel, recipient: string, inbox: AcceptedCheck['inbox'], verdict: FaultVerdict | null): RecipientCheck | { refusal: RecipientCheck; delayMs: number } {
  if (!verdict) return { recipient, verdict: 'accepted', inbox, delayMs: 0 };
  if (!verdict.refusal) return { recipient, verdict: 'accepted', inbox, delayMs: verdict.delayMs };
  const fault: RecipientFault = { class: classOf(verdict.refusal), ...verdict.refusal };
  if (channel.acceptsUndeliverable && (fault.class === 'undeliverable' || fault.class === 'temporary')) return { recipient, verdict: 'undeliverable', inbox, fault };
  return { refusal: { recipient, verdict: 'refused', inbox, fault }, delayMs: verdict.delayMs };
}

/** The copies a group of accepted checks makes: one per inbox, with the recipients routed to it. */
function targetsOf(submission: Submission, accepted: readonly AcceptedCheck[]): CopyTarget[] {
  const byInbox = new Map<string, CopyTarget>();
  for (const check of accepted) {
    const target = byInbox.get(check.inbox.id) ?? { inbox: check.inbox, envelope: envelopeOf(submission) };
    target.envelope.rcptTo.push(check.recipient);
    byInbox.set(check.inbox.id, target);
  }
  return [...byInbox.values()];
}

function envelopeOf(submission: Submission): MessageEnvelope {
  return { mailFrom: submission.envelopeFrom, rcptTo: [], clientAddress: submission.clientAddress, helo: submission.helo };
}

/** The outcome of each recipient, in the order given. */
function outcomesOf(checks: readonly RecipientCheck[], delivered: Delivered): RecipientOutcome[] {
  const storedBy = new Map(delivered.stored.map((m) => [m.inboxId, m]));
  const queued = new Set(delivered.queued);
  return checks.map((check): RecipientOutcome => {
    switch (check.verdict) {
      case 'unknown':
        return { recipient: check.recipient, status: 'unknown' };
      case 'refused':
      case 'undeliverable':
        return { recipient: check.recipient, status: check.verdict === 'refused' ? 'refused' : 'undelivered', inboxId: check.inbox.id, fault: check.fault };
      default: {
        const message = storedBy.get(check.inbox.id);
        if (message) return { recipient: check.recipient, status: 'delivered', inboxId: check.inbox.id, message };
        if (queued.has(check)) return { recipient: check.recipient, status: 'queued', inboxId: check.inbox.id, delayMs: check.delayMs };
        return { recipient: check.recipient, status: 'unknown' }; // its inbox went between the check and the store
      }
    }
  });
}

/**
 * Creates the intake of a service: one per service, shared by every channel,
 * so the bounds of the store step (messages per inbox, stored bytes) and the
 * drain hold whichever way mail comes.
 */
export function createIntake(deps: IntakeDeps): Intake {
  const prepare = deps.prepare ?? prepareMessage;
  const parseTimeoutMs = deps.parseTimeoutMs ?? 10_000;
  const storeCopies = createStoreStep(deps);
  const background = new Set<Promise<unknown>>();

  const check = async (channel: Channel, reach: Reach, recipient: string): Promise<RecipientCheck> => {
    const inbox = await reachRecipient(deps.store, channel.kind, reach, recipient, deps.now());
    if (!inbox) return { recipient, verdict: 'unknown' };
    const result = verdictCheck(channel, recipient, inbox, (await deps.faults?.take(inbox.id)) ?? null);
    if (!('refusal' in result)) return result;
    await deps.faults?.delay(result.delayMs);
    return result.refusal;
  };

  /** The accepted checks whose inbox is still active (looked up again, with its current record). */
  const stillThere = async (submission: Submission, accepted: readonly AcceptedCheck[]): Promise<AcceptedCheck[]> => {
    const found = await Promise.all(accepted.map((c) => reachRecipient(deps.store, submission.channel.kind, submission.reach, c.recipient, deps.now())));
    return accepted.flatMap((c, i) => {
      const inbox = found[i];
      return inbox && inbox.id === c.inbox.id ? [{ ...c, inbox }] : [];
    });
  };

  const messageOf = async (submission: Submission): Promise<{ message: NewMessage; raw: Uint8Array | null }> => {
    const content = submission.content;
    if (content.kind === 'message') return { message: content.build(deps.now()), raw: null };
    const { data, bareLineEndings } = normaliseLineEndings(content.raw);
    const { message, fallbackReason } = await prepare(data, { envelopeFrom: submission.envelopeFrom, timeoutMs: parseTimeoutMs });
    if (fallbackReason !== null) deps.logger.warn({ id: submission.logId, channel: submission.channel.id, reason: fallbackReason }, 'intake: message could not be fully parsed; stored with its raw source and headers');
    if (bareLineEndings > 0) deps.logger.info({ id: submission.logId, bareLineEndings }, 'intake: bare line endings normalised to CRLF');
    return { message, raw: data };
  };

  const storeLater = async (submission: Submission, waiting: readonly AcceptedCheck[], prepared: { message: NewMessage; raw: Uint8Array | null }): Promise<MessageRecord[]> => {
    await deps.faults?.delay(Math.max(...waiting.map((c) => c.delayMs)));
    const later = await stillThere(submission, waiting);
    return storeCopies(submission.channel, targetsOf(submission, later), prepared.message, prepared.raw);
  };

  const deliver = async (submission: Submission, given: readonly AcceptedCheck[], options: DeliverOptions): Promise<Delivered> => {
    const accepted = options.recheck ? await stillThere(submission, given) : [...given];
    if (accepted.length === 0) return { stored: [], queued: [], settled: Promise.resolve() };
    const prepared = await messageOf(submission);
    const now = accepted.filter((c) => c.delayMs <= 0);
    const waiting = accepted.filter((c) => c.delayMs > 0);
    const stored = await storeCopies(submission.channel, targetsOf(submission, now), prepared.message, prepared.raw);
    if (waiting.length === 0) return { stored, queued: [], settled: Promise.resolve() };
    if (options.delayed === 'hold') return { stored: [...stored, ...(await storeLater(submission, waiting, prepared))], queued: [], settled: Promise.resolve() };
    const job = storeLater(submission, waiting, prepared).catch((error: unknown) => {
      deps.logger.error({ err: error, id: submission.logId, channel: submission.channel.id }, 'intake: a delayed copy could not be stored');
    });
    background.add(job);
    void job.finally(() => background.delete(job));
    return { stored, queued: waiting, settled: job.then(() => undefined) };
  };

  return {
    check,
    deliver,
    async accept(submission) {
      const checks = await Promise.all(submission.recipients.map((r) => check(submission.channel, submission.reach, r)));
      const accepted = checks.filter((c): c is AcceptedCheck => c.verdict === 'accepted');
      const delivered = await deliver(submission, accepted, { delayed: 'background', recheck: false });
      return { recipients: outcomesOf(checks, delivered), stored: delivered.stored, settled: delivered.settled };
    },
    pending: () => background.size,
    async close() {
      deps.faults?.close();
      await Promise.allSettled([...background]);
    },
  };
}
