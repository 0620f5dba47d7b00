/**
 * Twilio Programmable Messaging, as an app's `twilio` SDK calls it, at
 * `/sms/twilio/api/2010-04-01/…` (the SDK's `https://api.twilio.com/…` with
 * the host swapped for `$TWILIO_API_BASE/api`): `POST Messages.json` stores
 * the SMS in the phone of `To` and answers Twilio's Message resource (201) or
 * Twilio's error body with its code; `StatusCallback` gets `sent` then
 * `delivered`, signed with the auth token the request carried.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { createTwilioVerifyRoutes } from './sms-twilio-verify.handlers.ts';
import { postForm } from '../sms/callbacks.ts';
import { deliverSms, segmentsOf } from '../sms/deliver.ts';
import { mayUseIntake, reachablePhone } from '../sms/reach.ts';
import { smsFaultOf, storeAfter } from '../sms/faults.ts';
import { E164_PATTERN } from '../../wire/phones.ts';
import { TWILIO_AUTH_ERROR, TWILIO_MAX_BODY, basicCredentials, formField, twilioError, twilioMessageResource, twilioSid, twilioSignature } from '../sms/twilio.ts';
import type { TwilioError, TwilioMessageFields } from '../sms/twilio.ts';

/** Answers a Twilio error in Twilio's shape. */
function fail(c: Context<AppEnv>, error: TwilioError): Response {
  return c.json(error.body, error.status as 400);
}


/** Checks a send request; a Twilio error, or null when it may go. */
function checkSend(to: string, from: string, service: string, body: string): TwilioError | null {
  if (to === '') return twilioError(400, 21604, "A 'To' phone number is required.");
  if (!E164_PATTERN.test(to)) return twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}. Use E.164 (+ and the country code), e.g. a number from POST /api/v1/phones.`);
  if (from === '' && service === '') return twilioError(400, 21603, "A 'From' phone number is required.");
  if (body === '') return twilioError(400, 21602, 'Message body is required.');
  if ([...body].length > TWILIO_MAX_BODY) return twilioError(400, 21617, `The concatenated message body exceeds the ${TWILIO_MAX_BODY} character limit.`);
  return null;
}

/** Calls the app's `StatusCallback` with each status in turn, signed; failures are logged, never retried. */
function reportStatus(ctx: ServerContext, url: string, authToken: string, message: TwilioMessageFields, statuses: string[]): void {
  void (async () => {
    for (const status of statuses) {
      const params: Record<string, string> = {
        AccountSid: message.accountSid,
        ApiVersion: '2010-04-01',
        From: message.from ?? '',
        To: message.to,
        MessageSid: message.sid,
        SmsSid: message.sid,
        MessageStatus: status,
        SmsStatus: status,
        ...(message.messagingServiceSid ? { MessagingServiceSid: message.messagingServiceSid } : {}),
        ...(message.errorCode ? { ErrorCode: String(message.errorCode) } : {}),
      };
      try {
        await postForm(url, params, { 'X-Twilio-Signature': twilioSignature(authToken, url, params), 'User-Agent': 'TwilioProxy/1.1' });
      } catch (error) {
        ctx.logger.warn({ err: error, url, messageSid: message.sid }, 'sms: the StatusCallback failed');
        return;
      }
    }
  })();
}

/** The Twilio Messaging routes, mounted at `/sms/twilio`. */
export function createTwilioRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route('/verify', createTwilioVerifyRoutes(ctx));

  app.post('/api/2010-04-01/Accounts/:accountSid/Messages.json', async (c) => {
    const principal = c.var.principal;
    if (!mayUseIntake(principal, ctx.config.http.host)) {
      return fail(c, TWILIO_AUTH_ERROR);
    }
    const accountSid = c.req.param('accountSid');
    const form = await c.req.parseBody();
    const to = formField(form, 'To').trim();
    const from = formField(form, 'From').trim();
    const service = formField(form, 'MessagingServiceSid').trim();
    const body = formField(form, 'Body');
    const problem = checkSend(to, from, service, body);
    if (problem) return fail(c, problem);
    const phone = await reachablePhone(ctx.store, principal, to, ctx.now());
    if (!phone) {
      return fail(c, twilioError(400, 21612, `The 'To' phone number: ${to}, is not currently reachable via SMS: no active inboxkit phone has it (numbers come from POST /api/v1/phones and go when the phone is deleted or expires).`));
    }
    const fault = smsFaultOf(await ctx.faults.take(phone.id));
    if (fault.kind === 'invalid') return fail(c, twilioError(400, 21211, `Invalid 'To' Phone Number: ${to} (an inboxkit fault set on this phone).`));
    if (fault.kind === 'unsubscribed') return fail(c, twilioError(400, 21610, 'Attempt to send to unsubscribed recipient'));
    const sid = twilioSid('SM');
    const message: TwilioMessageFields = { accountSid, sid, to, from: from || null, messagingServiceSid: service || null, body, segments: segmentsOf(body), status: 'queued', createdAt: ctx.now() };
    const callback = formField(form, 'StatusCallback');
    const token = basicCredentials(c.req.header('authorization'))?.password ?? '';
    if (fault.kind === 'undeliverable') {
      if (callback !== '') reportStatus(ctx, callback, token, { ...message, errorCode: 30003, errorMessage: 'Unreachable destination handset' }, ['sent', 'undelivered']);
    } else {
      // Delivered (and reported so) once stored: after the fault's delay, when it has one.
      const deliver = async () => {
        await deliverSms(ctx, phone, { to, from: from || service, body, provider: 'twilio', providerId: sid, clientAddress: clientAddressOf(c) });
        if (callback !== '') reportStatus(ctx, callback, token, message, ['sent', 'delivered']);
      };
      await storeAfter(fault.delayMs, (ms) => ctx.faults.delay(ms), deliver, (error) => ctx.logger.error({ err: error }, 'sms: a delayed SMS could not be stored'));
    }
    return c.json(twilioMessageResource(message), 201);
  });

  return app;
}
