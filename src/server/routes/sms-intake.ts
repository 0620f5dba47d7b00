/**
 * How an SMS provider's route hands a text to the one intake: the caller
 * and what it may reach decided once from the request, then the intake's
 * outcome for the one recipient, which the route answers in its provider's
 * wire shape.
 *
 * @packageDocumentation
 */
import type { Context } from 'hono';
import { callerOf, isSharedService, reachOf } from '../auth/caller.ts';
import type { Reach } from '../auth/caller.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { FormError, parseForm } from '../http/form.ts';
import type { FormFields } from '../http/form.ts';
import type { AcceptedCheck, Channel, RecipientCheck, RecipientOutcome, Submission } from '../intake/types.ts';
import { smsMessage } from '../sms/message.ts';
import type { SmsSubmission } from '../sms/message.ts';
import type { ProviderId } from '../../wire/providers.ts';

/** The SMS channel of a provider: phones only; an undeliverable handset is accepted, then fails, as carriers report it. */
export function smsChannel(provider: ProviderId): Channel {
  return { id: provider, kind: 'sms', acceptsUndeliverable: true };
}

/** Which phones the request may text, or null when this shared service refuses it (the provider's authentication error). */
export function smsReachOf(c: Context<AppEnv>, ctx: ServerContext): Reach | null {
  return reachOf(c.var.principal, isSharedService(ctx.config));
}

/** A text to send through the intake. */
export interface SmsToSend extends SmsSubmission {
  provider: ProviderId;
}

/** The submission of a text for the request. */
function submissionOf(c: Context<AppEnv>, reach: Reach, sms: SmsToSend): Submission {
  const address = clientAddressOf(c);
  return {
    channel: smsChannel(sms.provider),
    caller: callerOf(c.var.principal, address),
    reach,
    envelopeFrom: sms.from.replace(/[\r\n]+/g, ' '),
    recipients: [sms.to],
    clientAddress: address,
    helo: null,
    content: { kind: 'message', build: (receivedAt) => smsMessage(sms, receivedAt) },
    logId: sms.providerId,
  };
}

/**
 * Texts one phone through the intake for the request: its outcome
 * (`unknown` for a number without a phone the caller may text), and when
 * its delayed copy, if any, is stored.
 */
export async function textPhone(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, sms: SmsToSend): Promise<{ outcome: RecipientOutcome; settled: Promise<void> }> {
  const { recipients, settled } = await ctx.intake.accept(submissionOf(c, reach, sms));
  return { outcome: recipients[0] ?? { recipient: sms.to, status: 'unknown' }, settled };
}

/**
 * Checks a phone before its text is written (a Verify API makes the code
 * only once the phone is known to take it): the intake's check, whose
 * accepted form {@link deliverChecked} then delivers.
 */
export function checkPhone(ctx: ServerContext, provider: ProviderId, reach: Reach, to: string): Promise<RecipientCheck> {
  return ctx.intake.check(smsChannel(provider), reach, to);
}

/** Delivers a text to a phone {@link checkPhone} accepted (after its fault's delay, in the background). */
export async function deliverChecked(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, check: AcceptedCheck, sms: SmsToSend): Promise<void> {
  await ctx.intake.deliver(submissionOf(c, reach, sms), [check], { delayed: 'background', recheck: false });
}

/**
 * Whom a Verify API's services and verifications belong to, and are charged
 * to: the caller (a session under a capped key is the key), and for a guest
 * the provider account it names too (Twilio's account sid, Vonage's API key),
 * so that guests on one address (every local test shares 127.0.0.1) never
 * share, rename or cancel each other's.
 */
export function verifyOwnerOf(c: Context<AppEnv>, account: string): string {
  const caller = callerOf(c.var.principal, clientAddressOf(c));
  return caller.credential ?? `${caller.key} account:${account}`;
}

/**
 * The request's form, read within the form bounds (fields counted before
 * any is decoded), or the `FormError` that says which bound it passed, for
 * the route to answer in its provider's words.
 */
export async function boundedForm(c: Context<AppEnv>): Promise<FormFields | FormError> {
  try {
    return await parseForm(c);
  } catch (error) {
    if (error instanceof FormError) return error;
    throw error;
  }
}
