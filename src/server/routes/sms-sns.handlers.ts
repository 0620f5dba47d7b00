/**
 * AWS SNS `Publish` to a `PhoneNumber`, as an app's `@aws-sdk/client-sns`
 * calls it with `endpoint: $AWS_SNS_ENDPOINT` (`/sms/sns`): the text is
 * stored in the phone of the number, and the answer is SNS's XML. Topics and
 * their HTTP(S) subscriptions (SES's events) are `sms-sns-topics.handlers.ts`.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { E164_PATTERN } from '../../wire/phones.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { Reach } from '../auth/caller.ts';
import { findPhone, mayReach } from '../intake/reach.ts';
import { isUnsubscribed } from '../sms/faults.ts';
import { formField } from '../sms/kit.ts';
import type { ParsedForm } from '../sms/kit.ts';
import { SNS_MAX_SMS, messageAttributes, optInResponse, optedOutResponse, publishResponse, snsError, snsSender } from '../sms/sns.ts';
import type { SnsAnswer } from '../sms/sns.ts';
import { boundedForm, smsReachOf, textPhone } from './sms-intake.ts';
import { SNS_TOPIC_ACTIONS, confirmSubscription, topicAction, unsubscribe } from './sms-sns-topics.handlers.ts';
import type { SnsTopics } from '../sms/sns-topics.ts';
import { FormError } from '../http/form.ts';

function answer(c: Context<AppEnv>, a: SnsAnswer): Response {
  return c.body(a.xml, a.status as 200, { 'content-type': 'text/xml' });
}

/** Publish to a phone number; anything else is refused in SNS's words. */
async function publish(c: Context<AppEnv>, ctx: ServerContext, topics: SnsTopics): Promise<Response> {
  const reach = smsReachOf(c, ctx);
  if (!reach) {
    return answer(c, snsError(403, 'InvalidClientTokenId', 'The security token included in the request is invalid: this shared inboxkit service takes an inboxkit API key as the access key id.'));
  }
  const form = await boundedForm(c);
  if (form instanceof FormError) return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: ${form.message}`));
  const action = formField(form, 'Action');
  if (action === 'CheckIfPhoneNumberIsOptedOut') return checkOptedOut(c, ctx, reach, formField(form, 'phoneNumber').trim());
  if (action === 'OptInPhoneNumber') return optIn(c, ctx, reach, formField(form, 'phoneNumber').trim());
  const onTopic = await topicAction(c, ctx, topics, action, form);
  if (onTopic) return answer(c, onTopic);
  if (action !== 'Publish') return answer(c, snsError(400, 'InvalidAction', `The action ${action || '(none)'} is not valid for this endpoint: inboxkit's SNS emulation serves Publish to a PhoneNumber, CheckIfPhoneNumberIsOptedOut, OptInPhoneNumber and ${SNS_TOPIC_ACTIONS.join(', ')} (see docs/phones.md and docs/email-apis.md).`));
  return publishSms(c, ctx, reach, form);
}

/** The SNS error of a publish request's fields, or null when it may go. */
function checkPublish(to: string, body: string): SnsAnswer | null {
  if (to === '') return snsError(400, 'InvalidParameter', 'Invalid parameter: PhoneNumber Reason: give a PhoneNumber (an inboxkit phone), or a TopicArn this caller created.');
  if (!E164_PATTERN.test(to)) return snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${to} is not valid to publish to (use E.164)`);
  if (body === '') return snsError(400, 'InvalidParameter', 'Invalid parameter: Empty message');
  if ([...body].length > SNS_MAX_SMS) return snsError(400, 'InvalidParameter', `Invalid parameter: Message too long (an SMS takes at most ${SNS_MAX_SMS} characters)`);
  return null;
}

/** `Publish` to a `PhoneNumber`: parse, hand to the intake, answer. */
async function publishSms(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, form: ParsedForm): Promise<Response> {
  const to = formField(form, 'PhoneNumber').trim();
  const body = formField(form, 'Message');
  const problem = checkPublish(to, body);
  if (problem) return answer(c, problem);
  const messageId = randomUUID();
  const { outcome } = await textPhone(c, ctx, reach, { to, from: snsSender(messageAttributes(form)), body, provider: 'sns', providerId: messageId });
  if (outcome.status === 'unknown') return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${to} is not an active inboxkit phone this caller may text (numbers come from POST /api/v1/phones)`));
  if (outcome.status === 'refused' && outcome.fault.class === 'invalid') return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${to} is not valid to publish to (an inboxkit fault set on this phone with failSms('invalid'))`));
  // SNS accepts a publish to an opted-out or unreachable phone and fails the delivery later (its delivery
  // status log says "Phone number is opted out" or "Phone is currently unreachable"): nothing is stored.
  return answer(c, publishResponse(messageId));
}

/** `CheckIfPhoneNumberIsOptedOut`: true while the phone has the opted-out fault (`failSms('unsubscribed')`). */
async function checkOptedOut(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, number: string): Promise<Response> {
  if (!E164_PATTERN.test(number)) return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${number || '(none)'} is not an E.164 number`));
  const phone = await findPhone(ctx.store, number, ctx.now());
  const reachable = phone !== null && mayReach(reach, phone);
  return answer(c, optedOutResponse(reachable && isUnsubscribed(await ctx.faults.get(phone.id))));
}

/** `OptInPhoneNumber`: an opted-out phone (`failSms('unsubscribed')`) takes texts again, as SNS opts a number back in. */
async function optIn(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, number: string): Promise<Response> {
  if (!E164_PATTERN.test(number)) return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${number || '(none)'} is not an E.164 number`));
  const phone = await findPhone(ctx.store, number, ctx.now());
  if (phone && mayReach(reach, phone) && isUnsubscribed(await ctx.faults.get(phone.id))) await ctx.faults.clear(phone.id);
  return answer(c, optInResponse());
}

/** The SNS routes, mounted at `/sms/sns`. */
export function createSnsRoutes(ctx: ServerContext, parts: { snsTopics: SnsTopics }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/SigningCert.pem', async (c) => {
    const pem = await ctx.snsSigning.certificate().catch((error: unknown) => error as Error);
    if (pem instanceof Error) return c.text(`${pem.message}\n`, 503);
    return c.body(pem, 200, { 'content-type': 'application/x-pem-file' });
  });
  // An app confirms a subscription by visiting the SubscribeURL of its SubscriptionConfirmation, and ends it at a notification's UnsubscribeURL.
  app.get('/*', (c) => {
    const action = c.req.query('Action');
    if (action === 'ConfirmSubscription') return answer(c, confirmSubscription(parts.snsTopics, c.req.query('TopicArn') ?? '', c.req.query('Token') ?? ''));
    if (action === 'Unsubscribe') return answer(c, unsubscribe(parts.snsTopics, c.req.query('SubscriptionArn') ?? ''));
    return answer(c, snsError(400, 'InvalidAction', 'GET serves ConfirmSubscription (the SubscribeURL) and Unsubscribe (the UnsubscribeURL) only; the SDK POSTs its actions.'));
  });
  // The SDK posts to the endpoint's path with a slash added (`/sms/sns/`).
  app.post('/*', (c) => publish(c, ctx, parts.snsTopics));
  return app;
}
