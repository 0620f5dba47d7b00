/**
 * Twilio Programmable Messaging, as an app's `twilio` SDK calls it, at
 * `/sms/twilio/api/2010-04-01/…` (the SDK's `https://api.twilio.com/…` with
 * the host swapped for `$TWILIO_API_BASE/api`): `POST Messages.json` hands the
 * SMS to the intake for the phone of `To` and answers Twilio's Message
 * resource (201) or Twilio's error body with its code; `StatusCallback` gets
 * each status Twilio would send, signed with the auth token the request carried.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { callerOf } from '../auth/caller.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { clientAddressOf } from '../http/client-address.ts';
import type { RecipientOutcome } from '../intake/types.ts';
import { basicCredentials, formField, segmentsOf } from '../sms/kit.ts';
import type { ParsedForm } from '../sms/kit.ts';
import { E164_PATTERN } from '../../wire/phones.ts';
import { TWILIO_AUTH_ERROR, TWILIO_MAX_BODY, twilioError, twilioMessageResource, twilioSid, twilioSignature } from '../sms/twilio.ts';
import type { TwilioError, TwilioMessageFields } from '../sms/twilio.ts';
import { boundedForm, smsReachOf, textPhone, verifyOwnerOf } from './sms-intake.ts';
import { TWILIO_LEDGER_BOUNDS } from '../sms/twilio-ledger.ts';
import type { TwilioLedger } from '../sms/twilio-ledger.ts';
import { listQueryOf, twilioMessagePage } from '../sms/twilio-pages.ts';
import { FormError } from '../http/form.ts';

/** Answers a Twilio error in Twilio's shape. */
function fail(c: Context<AppEnv>, error: TwilioError): Response {
  return c.json(error.body, error.status as 400);
}

/** A send request, as the SDK's form gives it. */
interface TwilioSend {
  accountSid: string;
  to: string;
  from: string;
  service: string;
  body: string;
  callback: string;
}

function parseSend(accountSid: string, form: ParsedForm): TwilioSend {
  return {
    accountSid,
    to: formField(form, 'To').trim(),
    from: formField(form, 'From').trim(),
    service: formField(form, 'MessagingServiceSid').trim(),
    body: formField(form, 'Body'),
    callback: formField(form, 'StatusCallback'),
  };
}

/** Checks a send request; a Twilio error, or null when it may go. */
function checkSend({ to, from, service, body }: TwilioSend): TwilioError | null {
  if (to === '') return twilioError(400, 21604, "A 'To' phone number is required.");
  if (!E164_PATTERN.test(to)) return twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}. Use E.164 (+ and the country code), e.g. a number from POST /api/v1/phones.`);
  if (from === '' && service === '') return twilioError(400, 21603, "A 'From' phone number is required.");
  if (body === '') return twilioError(400, 21602, 'Message body is required.');
  if ([...body].length > TWILIO_MAX_BODY) return twilioError(400, 21617, `The concatenated message body exceeds the ${TWILIO_MAX_BODY} character limit.`);
  return null;
}

/**
 * Calls the app's `StatusCallback` with each status in turn, signed, as
 * Twilio sends them: `ErrorCode` only with `failed` and `undelivered`.
 * Failures are logged, never retried.
 */
function reportStatus(ctx: ServerContext, caller: string, url: string, authToken: string, message: TwilioMessageFields, statuses: string[]): void {
  void (async () => {
    for (const status of statuses) {
      const failed = status === 'failed' || status === 'undelivered';
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
        ...(failed && message.errorCode ? { ErrorCode: String(message.errorCode) } : {}),
      };
      try {
        await ctx.webhooks.postForm(caller, url, params, { 'X-Twilio-Signature': twilioSignature(authToken, url, params), 'User-Agent': 'TwilioProxy/1.1' });
      } catch (error) {
        ctx.logger.warn({ err: error, url, messageSid: message.sid }, 'sms: the StatusCallback failed');
        return;
      }
    }
  })();
}

/** The Twilio error of a refused recipient, or null when the intake accepted it. */
function refusalOf(outcome: RecipientOutcome): TwilioError | null {
  const to = outcome.recipient;
  if (outcome.status === 'unknown') {
    return twilioError(400, 21612, `The 'To' phone number: ${to}, is not currently reachable via SMS: no active inboxkit phone has it that this caller may text (numbers come from POST /api/v1/phones and go when the phone is deleted or expires).`);
  }
  if (outcome.status !== 'refused') return null;
  if (outcome.fault.class === 'opted_out') return twilioError(400, 21610, 'Attempt to send to unsubscribed recipient');
  return twilioError(400, 21211, `Invalid 'To' Phone Number: ${to} (an inboxkit fault set on this phone).`);
}

/** `POST …/Messages.json`: parse, hand to the intake, answer; the ledger keeps the text and its status for fetch and list. */
async function sendMessage(c: Context<AppEnv>, ctx: ServerContext, ledger: TwilioLedger): Promise<Response> {
  const reach = smsReachOf(c, ctx);
  if (!reach) return fail(c, TWILIO_AUTH_ERROR);
  const form = await boundedForm(c);
  if (form instanceof FormError) return fail(c, twilioError(413, 20001, form.message));
  const send = parseSend(c.req.param('accountSid') ?? '', form);
  const problem = checkSend(send);
  if (problem) return fail(c, problem);
  const sid = twilioSid('SM');
  const { outcome, settled } = await textPhone(c, ctx, reach, { to: send.to, from: send.from || send.service, body: send.body, provider: 'twilio', providerId: sid });
  const refusal = refusalOf(outcome);
  if (refusal) return fail(c, refusal);
  const message: TwilioMessageFields = { accountSid: send.accountSid, sid, to: send.to, from: send.from || null, messagingServiceSid: send.service || null, body: send.body, segments: segmentsOf(send.body), status: 'queued', createdAt: ctx.now() };
  const undelivered = outcome.status === 'undelivered';
  const final = undelivered ? { ...message, status: 'undelivered', errorCode: 30003, errorMessage: 'Unreachable destination handset' } : { ...message, status: 'delivered' };
  const owner = verifyOwnerOf(c, send.accountSid);
  ledger.record(owner, message);
  // Delivered is reported once the phone holds the text: after its fault's delay, when it has one.
  void settled.then(() => ledger.update(owner, sid, { status: final.status, errorCode: final.errorCode ?? null, errorMessage: final.errorMessage ?? null }));
  if (send.callback !== '') {
    const token = basicCredentials(c.req.header('authorization'))?.password ?? '';
    const caller = callerOf(c.var.principal, clientAddressOf(c)).key;
    void settled.then(() => reportStatus(ctx, caller, send.callback, token, final, ['sent', final.status]));
  }
  return c.json(twilioMessageResource(message), 201);
}

/** `GET …/Messages/{Sid}.json` (`messages(sid).fetch()`): the Message resource of a text this owner sent through this node. */
function fetchMessage(c: Context<AppEnv>, ctx: ServerContext, ledger: TwilioLedger): Response {
  if (!smsReachOf(c, ctx)) return fail(c, TWILIO_AUTH_ERROR);
  const sid = (c.req.param('file') ?? '').replace(/\.json$/, '');
  const message = ledger.find(verifyOwnerOf(c, c.req.param('accountSid') ?? ''), sid);
  if (!message) return fail(c, twilioError(404, 20404, `The requested resource /2010-04-01/Accounts/${c.req.param('accountSid') ?? ''}/Messages/${sid}.json was not found: no text with this sid was sent by this account through this inboxkit node (it keeps the newest ${TWILIO_LEDGER_BOUNDS.perOwner} per account).`));
  return c.json(twilioMessageResource(message));
}

/** `GET …/Messages.json` (`messages.list()`, `messages.page()`): this owner's texts through this node, newest first, in Twilio's pages. */
function listMessages(c: Context<AppEnv>, ctx: ServerContext, ledger: TwilioLedger): Response {
  if (!smsReachOf(c, ctx)) return fail(c, TWILIO_AUTH_ERROR);
  const accountSid = c.req.param('accountSid') ?? '';
  const query = listQueryOf(new URL(c.req.url).searchParams);
  if (typeof query === 'string') return fail(c, twilioError(400, 20001, query));
  const all = ledger.list(verifyOwnerOf(c, accountSid), query.filter);
  return c.json(twilioMessagePage(accountSid, query, all));
}

/** The Twilio Messaging routes, mounted at `/sms/twilio`; the ledger keeps what they sent. */
export function createTwilioRoutes(ctx: ServerContext, parts: { twilioMessages: TwilioLedger }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const ledger = parts.twilioMessages;
  app.post('/api/2010-04-01/Accounts/:accountSid/Messages.json', (c) => sendMessage(c, ctx, ledger));
  app.get('/api/2010-04-01/Accounts/:accountSid/Messages.json', (c) => listMessages(c, ctx, ledger));
  app.get('/api/2010-04-01/Accounts/:accountSid/Messages/:file{[^/]+\\.json}', (c) => fetchMessage(c, ctx, ledger));
  return app;
}

/**
 * A Twilio path the emulation does not serve (`messages(sid).fetch()`,
 * Lookup, …): Twilio's 404 body (code 20404) naming the call and what is
 * served, so the SDK's `RestException` says it.
 */
export function twilioUnserved(c: Context<AppEnv>): Response {
  const path = c.req.path.replace(/^\/sms\/twilio/, '');
  return fail(c, twilioError(404, 20404, `The requested resource ${c.req.method} ${path} was not found: inboxkit's Twilio emulation serves messages.create(), messages(sid).fetch() and messages.list() (/2010-04-01/Accounts/{AccountSid}/Messages.json) and Verify v2 (services.create, verifications.create, verificationChecks.create) only (see docs/phones.md).`));
}
