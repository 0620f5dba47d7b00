/**
 * Twilio's wire format, as its REST API documents it: the Message resource
 * (`/2010-04-01/Accounts/{AccountSid}/Messages.json`), the error body
 * `{ code, message, more_info, status }` with Twilio's error codes, and the
 * request signature (`X-Twilio-Signature`) of the webhooks it calls.
 *
 * @packageDocumentation
 */
import { createHmac } from 'node:crypto';
import { hexId } from './kit.ts';

/** Twilio's limit of a message body, in characters (error 21617 past it). */
export const TWILIO_MAX_BODY = 1600;

/** A Twilio error answer: the HTTP status and the documented body. */
export interface TwilioError {
  status: number;
  body: { code: number; message: string; more_info: string; status: number };
}

/** Builds a Twilio error; `more_info` links Twilio's page of the code. */
export function twilioError(status: number, code: number, message: string): TwilioError {
  return { status, body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status } };
}

/** A sid of a Twilio resource: its two-letter prefix and 32 hex digits. */
export function twilioSid(prefix: string): string {
  return `${prefix}${hexId(16)}`;
}

/** Twilio's dates are RFC 2822 (`Sat, 28 Nov 2026 06:18:21 +0000`). */
export function twilioDate(epochMs: number): string {
  return new Date(epochMs).toUTCString().replace('GMT', '+0000');
}

/** What the Message resource of a sent message says. */
export interface TwilioMessageFields {
  accountSid: string;
  sid: string;
  to: string;
  from: string | null;
  messagingServiceSid: string | null;
  body: string;
  segments: number;
  status: string;
  createdAt: number;
  errorCode?: number | null;
  errorMessage?: string | null;
}

/** The Message resource, as `POST …/Messages.json` answers it (201) and `GET …/Messages/{Sid}.json` reads it. */
export function twilioMessageResource(m: TwilioMessageFields): Record<string, unknown> {
  const uri = `/2010-04-01/Accounts/${m.accountSid}/Messages/${m.sid}.json`;
  const date = twilioDate(m.createdAt);
  return {
    account_sid: m.accountSid,
    api_version: '2010-04-01',
    body: m.body,
    date_created: date,
    date_sent: m.status === 'queued' || m.status === 'accepted' ? null : date,
    date_updated: date,
    direction: 'outbound-api',
    error_code: m.errorCode ?? null,
    error_message: m.errorMessage ?? null,
    from: m.from,
    messaging_service_sid: m.messagingServiceSid,
    num_media: '0',
    num_segments: String(m.segments),
    price: null,
    price_unit: 'USD',
    sid: m.sid,
    status: m.status,
    subresource_uris: { media: uri.replace(/\.json$/, '/Media.json') },
    to: m.to,
    uri,
  };
}

/**
 * The `X-Twilio-Signature` of a request to `url` with form `params`: base64
 * HMAC-SHA1, keyed with the account's auth token, of the URL followed by each
 * parameter's name and value, sorted by name (Twilio's "Webhooks security").
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

/** Twilio's 20003 for a request a shared service refuses: what to send instead. */
export const TWILIO_AUTH_ERROR = twilioError(401, 20003, 'Authenticate: this shared inboxkit service takes an inboxkit API key as the auth token (twilio(accountSid, "tm_…")).');
