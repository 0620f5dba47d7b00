/**
 * AWS SNS `Publish` to a `PhoneNumber`, as an app's `@aws-sdk/client-sns`
 * calls it with `endpoint: $AWS_SNS_ENDPOINT` (`/sms/sns`): the text is
 * stored in the phone of the number, and the answer is SNS's XML.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { E164_PATTERN } from '../../wire/phones.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { deliverSms } from '../sms/deliver.ts';
import { isUnsubscribed, smsFaultOf, storeAfter } from '../sms/faults.ts';
import { mayUseIntake, reachablePhone } from '../sms/reach.ts';
import { SNS_MAX_SMS, messageAttributes, optedOutResponse, publishResponse, snsError, snsSender } from '../sms/sns.ts';
import type { SnsAnswer } from '../sms/sns.ts';
import { formField } from '../sms/twilio.ts';

function answer(c: Context<AppEnv>, a: SnsAnswer): Response {
  return c.body(a.xml, a.status as 200, { 'content-type': 'text/xml' });
}

/** Publish to a phone number; anything else is refused in SNS's words. */
async function publish(c: Context<AppEnv>, ctx: ServerContext): Promise<Response> {
  if (!mayUseIntake(c.var.principal, ctx.config.http.host)) {
    return answer(c, snsError(403, 'InvalidClientTokenId', 'The security token included in the request is invalid: this shared inboxkit service takes an inboxkit API key as the access key id.'));
  }
  const form = await c.req.parseBody();
  const action = formField(form, 'Action');
  if (action === 'CheckIfPhoneNumberIsOptedOut') return checkOptedOut(c, ctx, formField(form, 'phoneNumber').trim());
  if (action !== 'Publish') return answer(c, snsError(400, 'InvalidAction', `The action ${action || '(none)'} is not valid for this endpoint: the inboxkit service takes Publish to a PhoneNumber only.`));
  const to = formField(form, 'PhoneNumber').trim();
  const body = formField(form, 'Message');
  if (to === '') return answer(c, snsError(400, 'InvalidParameter', 'Invalid parameter: PhoneNumber Reason: the inboxkit service delivers SMS only; publishing to a TopicArn or TargetArn is not offered.'));
  if (!E164_PATTERN.test(to)) return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${to} is not valid to publish to (use E.164)`));
  if (body === '') return answer(c, snsError(400, 'InvalidParameter', 'Invalid parameter: Empty message'));
  if ([...body].length > SNS_MAX_SMS) return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: Message too long (an SMS takes at most ${SNS_MAX_SMS} characters)`));
  const phone = await reachablePhone(ctx.store, c.var.principal, to, ctx.now());
  if (!phone) return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${to} is not an active inboxkit phone (numbers come from POST /api/v1/phones)`));
  const fault = smsFaultOf(await ctx.faults.take(phone.id));
  if (fault.kind === 'invalid') return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${to} is not valid to publish to (an inboxkit fault set on this phone with failSms('invalid'))`));
  const messageId = randomUUID();
  // SNS accepts a publish to an opted-out or unreachable phone and fails the delivery later (its delivery
  // status log says "Phone number is opted out" or "Phone is currently unreachable"): nothing is stored.
  if (fault.kind === 'unsubscribed' || fault.kind === 'undeliverable') return answer(c, publishResponse(messageId));
  const sms = { to, from: snsSender(messageAttributes(form)), body, provider: 'sns', providerId: messageId, clientAddress: clientAddressOf(c) };
  await storeAfter(fault.delayMs, (ms) => ctx.faults.delay(ms), () => deliverSms(ctx, phone, sms), (error) => ctx.logger.error({ err: error }, 'sms: a delayed SMS could not be stored'));
  return answer(c, publishResponse(messageId));
}

/** `CheckIfPhoneNumberIsOptedOut`: true while the phone has the `unsubscribed` fault (`failSms('unsubscribed')`). */
async function checkOptedOut(c: Context<AppEnv>, ctx: ServerContext, number: string): Promise<Response> {
  if (!E164_PATTERN.test(number)) return answer(c, snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${number || '(none)'} is not an E.164 number`));
  const phone = await reachablePhone(ctx.store, c.var.principal, number, ctx.now());
  return answer(c, optedOutResponse(phone !== null && isUnsubscribed(await ctx.faults.get(phone.id))));
}

/** The SNS routes, mounted at `/sms/sns`. */
export function createSnsRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // The SDK posts to the endpoint's path with a slash added (`/sms/sns/`).
  app.post('/*', (c) => publish(c, ctx));
  return app;
}
