/**
 * An SMS from the test's phone to the app: a POST to the app's webhook in
 * Twilio's inbound format, signed as Twilio signs it (`X-Twilio-Signature`,
 * so the app's own `twilio.validateRequest()` passes). The TwiML the app
 * answers with is read back: each `<Message>` is a reply texted to the phone.
 *
 * @packageDocumentation
 */
import { createHmac, randomBytes } from 'node:crypto';
import { InboxkitError } from '../core/errors.ts';
import type { InboundSmsOptions, InboundSmsResult } from '../core/inbound-sms.ts';

/** Twilio's signature: base64 HMAC-SHA1 of the URL and the sorted parameters. */
export function twilioRequestSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The texts of a TwiML answer's `<Message>` verbs (plain, or in `<Body>`). */
export function twimlReplies(twiml: string): string[] {
  const out: string[] = [];
  for (const match of twiml.slice(0, 64 * 1024).matchAll(/<Message\b[^>]*>([\s\S]*?)<\/Message>/g)) {
    const inner = match[1] ?? '';
    const body = /<Body>([\s\S]*?)<\/Body>/.exec(inner)?.[1] ?? inner.replace(/<[^>]*>/g, '');
    const text = body.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name] ?? '').trim();
    if (text !== '') out.push(text);
  }
  return out;
}

/** Twilio's one-word opt-out and opt-in keywords (its default STOP filtering). */
const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'REVOKE']);
const OPT_IN = new Set(['START', 'YES', 'UNSTOP']);

/**
 * What Twilio's STOP filtering makes of an inbound text: only a message that is one
 * keyword (any case, spaces and end punctuation around it ignored) counts, so
 * "STOP PLEASE" is an ordinary message.
 */
export function stopKeyword(text: string): 'opt-out' | 'opt-in' | null {
  const word = text.trim().replace(/[.!?]+$/u, '').toUpperCase();
  return OPT_OUT.has(word) ? 'opt-out' : OPT_IN.has(word) ? 'opt-in' : null;
}

/** Posts an inbound SMS from `from` to the app's webhook, signed; resolves with the app's answer (its replies not yet texted). */
export async function postInboundSms(from: string, text: string, options: InboundSmsOptions): Promise<Omit<InboundSmsResult, 'undelivered' | 'keyword'>> {
  if (typeof options?.webhook !== 'string' || typeof options.authToken !== 'string') {
    throw new InboxkitError('phone.send(text, { webhook, authToken }): give the app\'s incoming-SMS webhook URL and the auth token it validates signatures with.');
  }
  const messageSid = `SM${randomBytes(16).toString('hex')}`;
  const accountSid = options.accountSid ?? `AC${'0'.repeat(32)}`;
  const params: Record<string, string> = {
    ToCountry: 'US', ToState: '', SmsMessageSid: messageSid, NumMedia: '0', ToCity: '', FromZip: '', SmsSid: messageSid, FromState: '',
    SmsStatus: 'received', FromCity: '', Body: text, FromCountry: '', To: options.to ?? '+15005550006', ToZip: '', NumSegments: '1',
    MessageSid: messageSid, AccountSid: accountSid, From: from, ApiVersion: '2010-04-01',
  };
  let response: Response;
  try {
    response = await fetch(options.webhook, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioRequestSignature(options.authToken, options.webhook, params), 'user-agent': 'TwilioProxy/1.1' },
      body: new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(options.timeout ?? 10_000),
    });
  } catch (error) {
    throw new InboxkitError(`phone.send: the app's webhook ${options.webhook} could not be reached: ${error instanceof Error ? error.message : String(error)}. Is the app running, and is the URL its incoming-SMS route?`, { cause: error });
  }
  const body = await response.text();
  return { messageSid, status: response.status, body, replies: twimlReplies(body) };
}
