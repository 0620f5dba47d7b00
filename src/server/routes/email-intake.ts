/**
 * How an email provider's route hands a send to the one intake: every
 * recipient checked first (a provider validates the whole send before it
 * accepts it), then, once the route decided to accept, the composed MIME
 * delivered to each accepted inbox. The route answers in its provider's
 * wire shape.
 *
 * On these channels an inbox's fault speaks as the providers do: `5.1.1`
 * (an invalid mailbox) and `5.7.1` (a suppressed recipient) are verdicts
 * `refused`, which each route turns into its provider's refusal at send or
 * its silent suppression; any other refusal (`undeliverable`, `temporary`)
 * is accepted and never delivered, as a bounce the provider reports later
 * (a `4xx` is tried once more first, as the provider retries).
 *
 * @packageDocumentation
 */
import type { Context } from 'hono';
import { callerOf, isSharedService, reachOf } from '../auth/caller.ts';
import type { Reach } from '../auth/caller.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { composeEmail } from '../email/compose.ts';
import type { EmailToCompose } from '../email/compose.ts';
import { clientAddressOf } from '../http/client-address.ts';
import type { AcceptedCheck, Channel, RecipientCheck, Submission } from '../intake/types.ts';
import type { ProviderId } from '../../wire/providers.ts';

/** The email channel of a provider: email inboxes only. */
export function emailChannel(provider: ProviderId): Channel {
  return { id: provider, kind: 'email', acceptsUndeliverable: true };
}

/** Which inboxes the request may send to, or null when this shared service refuses it (the provider's authentication error). */
export function emailReachOf(c: Context<AppEnv>, ctx: ServerContext): Reach | null {
  return reachOf(c.var.principal, isSharedService(ctx.config));
}

/** What came of checking a send's recipients. */
export interface CheckedSend {
  checks: RecipientCheck[];
  /** Recipients an inbox's fault refuses at once (`5.1.1`, `5.7.1`). */
  refused: Extract<RecipientCheck, { verdict: 'refused' }>[];
  accepted: AcceptedCheck[];
  /** Whether any recipient is an inbox the caller may reach (none: the send reaches nobody the service holds). */
  reachedAny: boolean;
}

/** Checks each recipient once (case-insensitively the same address is one), in the order given. */
export async function checkRecipients(ctx: ServerContext, provider: ProviderId, reach: Reach, recipients: readonly string[]): Promise<CheckedSend> {
  const unique = [...new Map(recipients.map((r) => [r.toLowerCase(), r])).values()];
  const checks = await Promise.all(unique.map((to) => checkRetryingOnce(ctx, provider, reach, to)));
  return {
    checks,
    refused: checks.filter((c): c is Extract<RecipientCheck, { verdict: 'refused' }> => c.verdict === 'refused'),
    accepted: checks.filter((c): c is AcceptedCheck => c.verdict === 'accepted'),
    reachedAny: checks.some((c) => c.verdict !== 'unknown'),
  };
}

/**
 * Checks one recipient; a temporary refusal (4xx) is tried once more, as the
 * provider retries it: a greylisting inbox (one refusal) is delivered, a
 * lasting 4xx stays undelivered.
 */
async function checkRetryingOnce(ctx: ServerContext, provider: ProviderId, reach: Reach, to: string): Promise<RecipientCheck> {
  const first = await ctx.intake.check(emailChannel(provider), reach, to);
  if (first.verdict !== 'undeliverable' || first.fault.class !== 'temporary') return first;
  return ctx.intake.check(emailChannel(provider), reach, to);
}

/** A send to deliver. */
export interface EmailDelivery {
  provider: ProviderId;
  /** The envelope sender (the bare `from` address). */
  envelopeFrom: string;
  /** The composed MIME ({@link composeWithin}). */
  raw: Uint8Array;
  /** The id the provider's API answered: names the send in log lines. */
  providerId: string;
}

/** The send composed into MIME, or null when it is larger than a message may be (`--max-message-bytes`, as on SMTP). */
export async function composeWithin(ctx: ServerContext, email: EmailToCompose): Promise<Uint8Array | null> {
  const raw = await composeEmail(email);
  return raw.byteLength > ctx.config.maxMessageBytes ? null : raw;
}

/**
 * Composes the send and stores a copy for each accepted inbox (a fault's
 * delay in the background): the intake's bounds (stored bytes, messages per
 * inbox) hold as on SMTP.
 */
export async function deliverEmail(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, delivery: EmailDelivery, accepted: readonly AcceptedCheck[]): Promise<void> {
  if (accepted.length === 0) return;
  const address = clientAddressOf(c);
  const submission: Submission = {
    channel: emailChannel(delivery.provider),
    caller: callerOf(c.var.principal, address),
    reach,
    envelopeFrom: delivery.envelopeFrom.replace(/[\r\n]+/g, ' '),
    recipients: accepted.map((check) => check.recipient),
    clientAddress: address,
    helo: null,
    content: { kind: 'mime', raw: delivery.raw },
    logId: delivery.providerId,
  };
  await ctx.intake.deliver(submission, accepted, { delayed: 'background', recheck: false });
}

/** The largest number of recipients one send may have: the provider's own limit, and never more than SMTP's (`--max-recipients`). */
export function maxRecipientsOf(ctx: ServerContext, providerLimit: number): number {
  return Math.min(providerLimit, ctx.config.maxRecipients);
}
