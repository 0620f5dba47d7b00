/**
 * Twilio Verify v2, as an app's `twilio` SDK calls it, at
 * `/sms/twilio/verify/v2/…` (`https://verify.twilio.com/…` with the host
 * swapped for `$TWILIO_API_BASE/verify`): the service makes the code, texts it
 * to the phone and checks it, so an app that never sees the code runs
 * unchanged and the test reads the code from the SMS.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { E164_PATTERN } from '../../wire/phones.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { findPhone, mayReach } from '../intake/reach.ts';
import { basicCredentials, formField } from '../sms/kit.ts';
import { TWILIO_AUTH_ERROR, twilioError } from '../sms/twilio.ts';
import { boundedForm, checkPhone, deliverChecked, smsReachOf, verifyOwnerOf } from './sms-intake.ts';
import { FormError } from '../http/form.ts';
import type { TwilioError } from '../sms/twilio.ts';
import {
  checkVerification,
  newService,
  serviceOrDefault,
  serviceResource,
  startVerification,
  verificationCheckResource,
  verificationResource,
} from '../sms/twilio-verify.ts';

function fail(c: Context<AppEnv>, error: TwilioError): Response {
  return c.json(error.body, error.status as 400);
}

/** The account of a Verify request: the Basic user name (Verify's URLs carry none). */
function accountOf(c: Context<AppEnv>): string {
  return basicCredentials(c.req.header('authorization'))?.user ?? '';
}

/** The Verify routes, mounted at `/sms/twilio/verify`. */
export function createTwilioVerifyRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const base = (c: Context<AppEnv>) => new URL(c.req.url).origin + c.req.path.replace(/\/v2\/.*$/, '');

  app.use('*', async (c, next) => {
    if (!smsReachOf(c, ctx)) return fail(c, TWILIO_AUTH_ERROR);
    await next();
  });

  app.post('/v2/Services', async (c) => {
    const form = await boundedForm(c);
    if (form instanceof FormError) return fail(c, twilioError(413, 20001, form.message));
    const friendlyName = formField(form, 'FriendlyName').trim();
    if (friendlyName === '' || friendlyName.length > 30) return fail(c, twilioError(400, 60200, 'Invalid parameter `FriendlyName`: give a name of 1 to 30 characters.'));
    const length = formField(form, 'CodeLength') === '' ? 6 : Number(formField(form, 'CodeLength'));
    if (!Number.isInteger(length) || length < 4 || length > 10) return fail(c, twilioError(400, 60200, 'Invalid parameter `CodeLength`: a whole number from 4 to 10.'));
    const service = newService(verifyOwnerOf(c, accountOf(c)), friendlyName, length, ctx.now());
    await ctx.store.putSmsVerifyService(service, ctx.config.bounds.smsVerifyServicesPerCaller);
    return c.json(serviceResource(service, accountOf(c), service.createdAt, base(c)), 201);
  });

  app.post('/v2/Services/:serviceSid/Verifications', async (c) => {
    const form = await boundedForm(c);
    if (form instanceof FormError) return fail(c, twilioError(413, 20001, form.message));
    const to = formField(form, 'To').trim();
    const channel = formField(form, 'Channel').trim();
    if (!E164_PATTERN.test(to)) return fail(c, twilioError(400, 60200, `Invalid parameter \`To\`: ${to}. Use E.164, e.g. a number from POST /api/v1/phones.`));
    if (channel !== 'sms') return fail(c, twilioError(400, 60200, `Invalid parameter \`Channel\`: ${channel || '(none)'}. The inboxkit service delivers the sms channel only.`));
    const reach = smsReachOf(c, ctx) ?? { kind: 'user', userId: '' };
    const check = await checkPhone(ctx, 'twilio-verify', reach, to);
    if (check.verdict === 'unknown') return fail(c, twilioError(400, 60200, `Invalid parameter \`To\`: ${to} is not an active inboxkit phone this caller may text (numbers come from POST /api/v1/phones).`));
    if (check.verdict === 'refused' && check.fault.class === 'opted_out') return fail(c, twilioError(403, 60410, `Verification delivery attempt blocked: ${to} does not take texts (an inboxkit fault set on this phone with failSms('unsubscribed')).`));
    if (check.verdict === 'refused') return fail(c, twilioError(400, 60200, `Invalid parameter \`To\`: ${to} (an inboxkit fault set on this phone with failSms('invalid')).`));
    const now = ctx.now();
    const serviceSid = c.req.param('serviceSid');
    const service = serviceOrDefault(serviceSid, await ctx.store.findSmsVerifyService(serviceSid));
    const start = { service, accountSid: accountOf(c), to, channel, inboxId: check.inbox.id, now };
    const verification = await ctx.store.changeSmsVerification({ serviceSid, to }, now, ctx.config.bounds.smsVerificationsPerPhone, (current) => startVerification(current, start));
    if (verification === 'too_many') return fail(c, twilioError(429, 60203, 'Max send attempts reached'));
    // Undeliverable: Verify answers pending, as Twilio does, and the text never arrives.
    if (check.verdict === 'accepted') {
      await deliverChecked(c, ctx, reach, check, { to, from: service.friendlyName, body: `Your ${service.friendlyName} verification code is: ${verification.code}`, provider: 'twilio-verify', providerId: verification.sid });
    }
    return c.json(verificationResource(verification, base(c)), 201);
  });

  app.post('/v2/Services/:serviceSid/VerificationCheck', async (c) => {
    const form = await boundedForm(c);
    if (form instanceof FormError) return fail(c, twilioError(413, 20001, form.message));
    const to = formField(form, 'To').trim();
    const sid = formField(form, 'VerificationSid').trim();
    const code = formField(form, 'Code').trim();
    if (to === '' && sid === '') return fail(c, twilioError(400, 60200, 'Invalid parameter: give `To` or `VerificationSid`.'));
    if (code === '') return fail(c, twilioError(400, 60200, 'Invalid parameter `Code`: it is required.'));
    const serviceSid = c.req.param('serviceSid');
    const key = to !== '' ? { serviceSid, to } : { serviceSid, sid };
    const notFound = twilioError(404, 20404, `The requested resource /Services/${serviceSid}/VerificationCheck was not found`);
    // Only a caller that may text the phone may check its code (another's phone looks like none).
    const pending = await ctx.store.findSmsVerification(key, ctx.now());
    const reach = smsReachOf(c, ctx);
    const phone = pending && reach ? await findPhone(ctx.store, pending.to, ctx.now()) : null;
    if (!pending || !reach || !phone || !mayReach(reach, phone)) return fail(c, notFound);
    const now = ctx.now();
    const checked = await ctx.store.changeSmsVerification(key, now, ctx.config.bounds.smsVerificationsPerPhone, (current) => checkVerification(current, code, now));
    if (checked === null) return fail(c, notFound);
    if (checked === 'too_many') return fail(c, twilioError(429, 60202, 'Max check attempts reached'));
    return c.json(verificationCheckResource(checked), 200);
  });

  return app;
}
