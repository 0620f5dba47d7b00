/**
 * An SMS as a message of its phone (the inbox whose local part is the
 * number): a plain-text body, sender and recipient as phone "addresses", the
 * provider API in headers, so the stream, the waits and the extraction read
 * an SMS like an email. The intake stores it as it stores any message.
 *
 * @packageDocumentation
 */
import { SMS_HEADER } from '../../wire/phones.ts';
import type { NewMessage } from '../storage/contract/types.ts';
import { oneLine, segmentsOf } from './kit.ts';

/** One text as a provider API received it. */
export interface SmsSubmission {
  /** The recipient, E.164. */
  to: string;
  /** The sender: a number, a short code or an alphanumeric sender id. */
  from: string;
  body: string;
  /** Which API took it (a provider id of `wire/providers.ts`); stored in the `x-inboxkit-sms` header. */
  provider: string;
  /** The provider's id of the message (a Twilio `SM…` sid, an SNS MessageId …). */
  providerId: string;
}

/** The SMS as a message: a plain-text body, sender and recipient as phone "addresses", the provider in headers. */
export function smsMessage(sms: SmsSubmission, receivedAt: number): NewMessage {
  const headers: Record<string, string> = {
    from: oneLine(sms.from),
    to: sms.to,
    date: new Date(receivedAt).toUTCString(),
    'content-type': 'text/plain; charset=utf-8',
    [SMS_HEADER]: sms.provider,
    'x-inboxkit-sms-id': oneLine(sms.providerId),
    'x-inboxkit-sms-segments': String(segmentsOf(sms.body)),
  };
  const head = Object.entries(headers).map(([name, value]) => `${name.replace(/(^|-)[a-z]/g, (s) => s.toUpperCase())}: ${value}`);
  const raw = new TextEncoder().encode(`${head.join('\r\n')}\r\n\r\n${sms.body.replace(/\r?\n/g, '\r\n')}`);
  return {
    raw,
    from: { address: oneLine(sms.from), name: '' },
    to: [{ address: sms.to, name: '' }],
    cc: [],
    replyTo: [],
    subject: '',
    headers,
    text: sms.body,
    rawHtml: null,
    sanitizedHtml: null,
    envelopeFrom: oneLine(sms.from),
    attachments: [],
  };
}
