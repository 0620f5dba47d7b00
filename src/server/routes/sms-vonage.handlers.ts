/**
 * Vonage's SMS API, as an app's `@vonage/server-sdk` calls it with
 * `restHost: $VONAGE_REST_HOST` (`/sms/vonage`): `POST /sms/json` stores the
 * text in the phone of `to` and answers Vonage's JSON, a status per part;
 * with a `callback`, a delivery receipt per part follows (JSON, loopback only).
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import { E164_PATTERN } from '../../wire/phones.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { deliverSms, segmentsOf } from '../sms/deliver.ts';
import { smsFaultOf, storeAfter } from '../sms/faults.ts';
import { mayUseIntake, reachablePhone } from '../sms/reach.ts';
import { createVonageVerifyRoutes } from './sms-vonage-verify.handlers.ts';
import { paramsOf } from './vonage-params.ts';
import { VONAGE_MAX_TEXT, vonageError, vonageMessageId, vonageNumber, vonageReceipt, vonageSent } from '../sms/vonage.ts';
import type { VonageReceipt } from '../sms/vonage.ts';
import { postJson } from '../sms/callbacks.ts';
import { basicCredentials } from '../sms/twilio.ts';

/** Sends a delivery receipt per part to the request's `callback` (when it gave one), in the background; failures are logged, never retried. */
function sendReceipts(ctx: ServerContext, callback: string, receipts: VonageReceipt[]): void {
  if (callback === '') return;
  void (async () => {
    for (const receipt of receipts) {
      try {
        await postJson(callback, vonageReceipt(receipt));
      } catch (error) {
        ctx.logger.warn({ err: error, url: callback, messageId: receipt.messageId }, 'sms: the Vonage delivery receipt webhook failed');
        return;
      }
    }
  })();
}

/** The Vonage routes, mounted at `/sms/vonage`. */
export function createVonageRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route('/verify', createVonageVerifyRoutes(ctx));

  app.post('/sms/json', async (c) => {
    if (!mayUseIntake(c.var.principal, ctx.config.http.host)) {
      return c.json(vonageError('4', 'Bad Credentials: this shared inboxkit service takes an inboxkit API key as the API secret.'));
    }
    const params = await paramsOf(c);
    const text = params.text ?? '';
    if (!params.to) return c.json(vonageError('2', 'Missing to param'));
    if (!params.from) return c.json(vonageError('2', 'Missing from param'));
    if (text === '') return c.json(vonageError('2', 'Missing text param'));
    const to = vonageNumber(params.to);
    if (!E164_PATTERN.test(to)) return c.json(vonageError('3', `Invalid to param: ${params.to} is not a number in E.164 (without the +)`));
    if ([...text].length > VONAGE_MAX_TEXT) return c.json(vonageError('3', `Invalid text param: over ${VONAGE_MAX_TEXT} characters`));
    const phone = await reachablePhone(ctx.store, c.var.principal, to, ctx.now());
    if (!phone) return c.json(vonageError('29', `Non-Whitelisted Destination: ${params.to} is not an active inboxkit phone (numbers come from POST /api/v1/phones)`));
    const fault = smsFaultOf(await ctx.faults.take(phone.id));
    // Vonage's own words: 6 for a number no network routes, 7 for a barred (opted-out) number.
    if (fault.kind === 'invalid') return c.json(vonageError('6', `Invalid Message: ${params.to} has a number prefix no network routes (an inboxkit fault set on this phone with failSms('invalid'))`));
    if (fault.kind === 'unsubscribed') return c.json(vonageError('7', `Number Barred: ${params.to} may not receive messages (an inboxkit fault set on this phone with failSms('unsubscribed'))`));
    const ids = Array.from({ length: segmentsOf(text) }, () => vonageMessageId());
    const receipts = (status: 'delivered' | 'failed') =>
      sendReceipts(ctx, params.callback ?? '', ids.map((messageId) => ({ msisdn: to.slice(1), sender: params.from ?? '', messageId, status, errCode: status === 'delivered' ? '0' : '2', apiKey: basicCredentials(c.req.header('authorization'))?.user ?? params.api_key ?? '', clientRef: params['client-ref'] ?? null, at: ctx.now() }) as const));
    // An undeliverable handset is accepted (status 0), as Vonage accepts it, never arrives, and its receipts say failed.
    if (fault.kind === 'undeliverable') receipts('failed');
    else {
      const sms = { to, from: params.from, body: text, provider: 'vonage', providerId: ids[0] ?? '', clientAddress: clientAddressOf(c) };
      const deliver = async () => {
        await deliverSms(ctx, phone, sms);
        receipts('delivered');
      };
      await storeAfter(fault.delayMs, (ms) => ctx.faults.delay(ms), deliver, (error) => ctx.logger.error({ err: error }, 'sms: a delayed SMS could not be stored'));
    }
    return c.json(vonageSent(to.slice(1), ids, params['client-ref'] ?? null));
  });

  return app;
}
