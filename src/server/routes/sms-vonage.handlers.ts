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
import type { Context } from 'hono';
import type { RecipientOutcome } from '../intake/types.ts';
import { basicCredentials, segmentsOf } from '../sms/kit.ts';
import { paramsOf } from './vonage-params.ts';
import type { VonageParams } from './vonage-params.ts';
import { VONAGE_MAX_TEXT, vonageError, vonageMessageId, vonageNumber, vonageReceipt, vonageSent } from '../sms/vonage.ts';
import type { VonageReceipt } from '../sms/vonage.ts';
import { callerOf } from '../auth/caller.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { smsReachOf, textPhone } from './sms-intake.ts';

/** Sends a delivery receipt per part to the request's `callback` (when it gave one), in the background; failures are logged, never retried. */
function sendReceipts(ctx: ServerContext, caller: string, callback: string, receipts: VonageReceipt[]): void {
  if (callback === '') return;
  void (async () => {
    for (const receipt of receipts) {
      try {
        await ctx.webhooks.postJson(caller, callback, vonageReceipt(receipt));
      } catch (error) {
        ctx.logger.warn({ err: error, url: callback, messageId: receipt.messageId }, 'sms: the Vonage delivery receipt webhook failed');
        return;
      }
    }
  })();
}

/** Vonage's error of a send request's fields, or null when it may go. */
function checkSend(params: VonageParams): Record<string, unknown> | null {
  const text = params.text ?? '';
  if (!params.to) return vonageError('2', 'Missing to param');
  if (!params.from) return vonageError('2', 'Missing from param');
  if (text === '') return vonageError('2', 'Missing text param');
  if (!E164_PATTERN.test(vonageNumber(params.to))) return vonageError('3', `Invalid to param: ${params.to} is not a number in E.164 (without the +)`);
  if ([...text].length > VONAGE_MAX_TEXT) return vonageError('3', `Invalid text param: over ${VONAGE_MAX_TEXT} characters`);
  return null;
}

/** Vonage's error of a refused recipient (its own words: 6 for a number no network routes, 7 for a barred one), or null. */
function refusalOf(outcome: RecipientOutcome, to: string): Record<string, unknown> | null {
  if (outcome.status === 'unknown') return vonageError('29', `Non-Whitelisted Destination: ${to} is not an active inboxkit phone this caller may text (numbers come from POST /api/v1/phones)`);
  if (outcome.status !== 'refused') return null;
  if (outcome.fault.class === 'opted_out') return vonageError('7', `Number Barred: ${to} may not receive messages (an inboxkit fault set on this phone with failSms('unsubscribed'))`);
  return vonageError('6', `Invalid Message: ${to} has a number prefix no network routes (an inboxkit fault set on this phone with failSms('invalid'))`);
}

/** `POST /sms/json`: parse, hand to the intake, answer; receipts per part follow. */
async function sendSms(c: Context<AppEnv>, ctx: ServerContext): Promise<Response> {
  const reach = smsReachOf(c, ctx);
  if (!reach) return c.json(vonageError('4', 'Bad Credentials: this shared inboxkit service takes an inboxkit API key as the API secret.'));
  const params = await paramsOf(c);
  const problem = checkSend(params);
  if (problem) return c.json(problem);
  const to = vonageNumber(params.to ?? '');
  const text = params.text ?? '';
  const ids = Array.from({ length: segmentsOf(text) }, () => vonageMessageId());
  const { outcome, settled } = await textPhone(c, ctx, reach, { to, from: params.from ?? '', body: text, provider: 'vonage', providerId: ids[0] ?? '' });
  const refusal = refusalOf(outcome, params.to ?? '');
  if (refusal) return c.json(refusal);
  const apiKey = basicCredentials(c.req.header('authorization'))?.user ?? params.api_key ?? '';
  const status = outcome.status === 'undelivered' ? 'failed' : 'delivered';
  const receipts = ids.map((messageId) => ({ msisdn: to.slice(1), sender: params.from ?? '', messageId, status, errCode: status === 'delivered' ? '0' : '2', apiKey, clientRef: params['client-ref'] ?? null, at: ctx.now() }) as const);
  // An undeliverable handset is accepted (status 0), as Vonage accepts it, never arrives, and its receipts say failed.
  const caller = callerOf(c.var.principal, clientAddressOf(c)).key;
  void settled.then(() => sendReceipts(ctx, caller, params.callback ?? '', receipts));
  return c.json(vonageSent(to.slice(1), ids, params['client-ref'] ?? null));
}

/** The Vonage SMS routes, mounted at `/sms/vonage`. */
export function createVonageRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/sms/json', (c) => sendSms(c, ctx));
  return app;
}

/**
 * A Vonage path the emulation does not serve: Vonage's 404 problem body
 * (`type`, `title`, `detail`) naming the call and what is served.
 */
export function vonageUnserved(c: Context<AppEnv>): Response {
  const path = c.req.path.replace(/^\/sms\/vonage/, '');
  return c.json(
    {
      type: 'https://developer.vonage.com/api-errors#not-found',
      title: 'Not Found',
      detail: `${c.req.method} ${path} is not served by inboxkit's Vonage emulation: it serves sms.send() (POST /sms/json) and Verify v1 (POST /verify/json, /verify/check/json, /verify/control/json) only (see docs/phones.md).`,
      instance: crypto.randomUUID(),
    },
    404,
  );
}
