/**
 * Vonage's Verify API (v1), as an app's `@vonage/server-sdk` calls it with
 * `apiHost: $INBOXKIT_VONAGE_REST_HOST` (`/sms/vonage`): `POST /verify/json`
 * makes a code and texts it to the phone, `POST /verify/check/json` checks it,
 * `POST /verify/control/json` cancels the request. The test reads the code
 * from the SMS; the app, which never sees it, runs unchanged.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { E164_PATTERN } from '../../wire/phones.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { basicCredentials, hexId } from '../sms/kit.ts';
import { vonageNumber } from '../sms/vonage.ts';
import { VONAGE_MAX_HELD_SECONDS, VONAGE_PIN_EXPIRY, cancelVonageVerification, checkVonageVerification, startVonageVerification, vonageServiceKey, vonageVerifyError } from '../sms/vonage-verify.ts';
import { checkPhone, deliverChecked, smsReachOf, verifyOwnerOf } from './sms-intake.ts';
import { paramsOf } from './vonage-params.ts';

/** The owner of the request's verifications (`verifyOwnerOf`, with the Vonage API key as a guest's account). */
function ownerOf(c: Context<AppEnv>, params?: Record<string, string>): string {
  return verifyOwnerOf(c, basicCredentials(c.req.header('authorization'))?.user ?? params?.api_key ?? '');
}

/** Vonage's error of a start request's fields, or null when it may go. */
function checkStart(params: Record<string, string>): Record<string, unknown> | null {
  for (const name of ['number', 'brand']) if (!params[name]) return vonageVerifyError('2', `Your request is incomplete and missing the mandatory parameter \`${name}\``);
  const codeLength = params.code_length ? Number(params.code_length) : 4;
  const pinExpiry = params.pin_expiry ? Number(params.pin_expiry) : VONAGE_PIN_EXPIRY;
  if (!E164_PATTERN.test(vonageNumber(params.number ?? ''))) return vonageVerifyError('3', `Invalid value for parameter \`number\`: ${params.number} is not a number in E.164 (without the +)`);
  if ([...(params.brand ?? '')].length > 18) return vonageVerifyError('3', 'Invalid value for parameter `brand`: at most 18 characters');
  if (codeLength !== 4 && codeLength !== 6) return vonageVerifyError('3', 'Invalid value for parameter `code_length`: 4 or 6');
  if (!Number.isInteger(pinExpiry) || pinExpiry < 60 || pinExpiry > 3600) return vonageVerifyError('3', 'Invalid value for parameter `pin_expiry`: a whole number of seconds from 60 to 3600');
  return null;
}

/** `POST /verify/json`: check the phone through the intake, make the code, text it. */
async function startVerify(c: Context<AppEnv>, ctx: ServerContext): Promise<Response> {
  const reach = smsReachOf(c, ctx);
  const params = await paramsOf(c);
  const problem = checkStart(params);
  if (problem || !reach) return c.json(problem);
  const brand = params.brand ?? '';
  const to = vonageNumber(params.number ?? '');
  const check = await checkPhone(ctx, 'vonage-verify', reach, to);
  if (check.verdict === 'unknown') return c.json(vonageVerifyError('29', `Non-Permitted Destination: ${params.number} is not an active inboxkit phone this caller may text (numbers come from POST /api/v1/phones)`));
  if (check.verdict === 'refused' && check.fault.class === 'opted_out') return c.json(vonageVerifyError('7', `The number you are trying to verify is blacklisted for verification (an inboxkit fault set on this phone with failSms('unsubscribed'))`));
  if (check.verdict === 'refused') return c.json(vonageVerifyError('3', `Invalid value for parameter \`number\`: ${params.number} (an inboxkit fault set on this phone with failSms('invalid'))`));
  const now = ctx.now();
  const serviceKey = vonageServiceKey(ownerOf(c, params));
  // A code lives at most VONAGE_MAX_HELD_SECONDS here, whatever pin_expiry asks: a verification holds its number (no concurrent one) while it lives.
  const pinExpirySeconds = Math.min(params.pin_expiry ? Number(params.pin_expiry) : VONAGE_PIN_EXPIRY, VONAGE_MAX_HELD_SECONDS);
  const start = { serviceKey, apiKey: basicCredentials(c.req.header('authorization'))?.user ?? params.api_key ?? '', to, inboxId: check.inbox.id, codeLength: (params.code_length ? Number(params.code_length) : 4) as 4 | 6, pinExpirySeconds, now } as const;
  const started = await ctx.store.changeSmsVerification({ serviceSid: serviceKey, to }, now, ctx.config.bounds.smsVerificationsPerPhone, (current) => startVonageVerification(current, start));
  if ('concurrent' in started) return c.json(vonageVerifyError('10', 'Concurrent verifications to the same number are not allowed', started.concurrent));
  // Undeliverable: accepted (status 0), as Vonage accepts it, and the code never arrives.
  if (check.verdict === 'accepted') {
    await deliverChecked(c, ctx, reach, check, { to, from: brand, body: `Your ${brand} verification code is: ${started.code}`, provider: 'vonage-verify', providerId: started.sid });
  }
  return c.json({ request_id: started.sid, status: '0' });
}

/** The Verify routes, mounted at `/sms/vonage/verify`. */
export function createVonageVerifyRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    if (!smsReachOf(c, ctx)) {
      return c.json(vonageVerifyError('4', 'Invalid credentials were provided: this shared inboxkit service takes an inboxkit API key as the API secret.'));
    }
    await next();
  });

  app.post('/json', (c) => startVerify(c, ctx));

  app.post('/check/json', async (c) => {
    const params = await paramsOf(c);
    for (const name of ['request_id', 'code']) if (!params[name]) return c.json(vonageVerifyError('2', `Your request is incomplete and missing the mandatory parameter \`${name}\``));
    const requestId = params.request_id ?? '';
    const now = ctx.now();
    const key = { serviceSid: vonageServiceKey(ownerOf(c, params)), sid: requestId };
    const outcome = await ctx.store.changeSmsVerification(key, now, ctx.config.bounds.smsVerificationsPerPhone, (current) => checkVonageVerification(current, params.code ?? '', now));
    if (outcome === 'approved') return c.json({ request_id: requestId, event_id: hexId(16), status: '0', price: '0.00000000', currency: 'EUR', estimated_price_messages_sent: '0.00000000' });
    if (outcome === 'mismatch') return c.json(vonageVerifyError('16', 'The code provided does not match the expected value', requestId));
    if (outcome === 'too_many') return c.json(vonageVerifyError('17', 'The wrong code was provided too many times', requestId));
    return c.json(vonageVerifyError('6', `The Vonage platform was unable to process this message for the following reason: Request '${requestId}' was not found or it has been verified already.`, requestId));
  });

  app.post('/control/json', async (c) => {
    const params = await paramsOf(c);
    if (params.cmd !== 'cancel') return c.json({ status: '3', error_text: `Invalid value for parameter \`cmd\`: the inboxkit service takes cancel only` });
    const key = { serviceSid: vonageServiceKey(ownerOf(c, params)), sid: params.request_id ?? '' };
    const requestId = params.request_id ?? '';
    const now = ctx.now();
    const outcome = await ctx.store.changeSmsVerification(key, now, ctx.config.bounds.smsVerificationsPerPhone, (current) => cancelVonageVerification(current, now));
    if (outcome === 'not_found') return c.json({ status: '6', error_text: `The requestId '${requestId}' does not exist or its no longer active.` });
    if (outcome === 'too_soon') return c.json({ status: '19', error_text: `Verification request ['${requestId}'] can't be cancelled within the first 30 seconds.` });
    return c.json({ status: '0', command: 'cancel' });
  });

  return app;
}
