/**
 * One SMS's way into the store, whichever provider API it came through: find
 * the active phone (the inbox whose local part is the number), store the text
 * as a message of that inbox with its next seq, then publish it on the bus —
 * the same steps as the SMTP intake, so the stream, the waits and the
 * extraction read an SMS like an email.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import { SMS_HEADER, isPhoneLocalPart } from '../../wire/phones.ts';
import type { EventBus } from '../events/types.ts';
import type { InboxRecord, MessageRecord, NewMessage, Store } from '../storage/contract/types.ts';

/** What the SMS intake needs. */
export interface SmsDeps {
  store: Store;
  bus: EventBus;
  now(): number;
  /** `maxMessagesPerInbox`: messages kept per inbox (the oldest are evicted past it); null: no limit. */
  config: { maxMessagesPerInbox: number | null };
}

/** One text as a provider API received it. */
export interface SmsSubmission {
  /** The recipient, E.164. */
  to: string;
  /** The sender: a number, a short code or an alphanumeric sender id. */
  from: string;
  body: string;
  /** Which API took it (`twilio`, `twilio-verify`, `sns`, `vonage`, `vonage-verify`, `inboxkit`); stored in the `x-inboxkit-sms` header. */
  provider: string;
  /** The provider's id of the message (a Twilio `SM…` sid, an SNS MessageId …). */
  providerId: string;
  /** Client address of the request, recorded in the envelope. */
  clientAddress: string | null;
}

/** GSM-7 fits 160 characters in one part and 153 per part beyond; anything else (UCS-2) 70 and 67. */
export function segmentsOf(body: string): number {
  // The GSM 03.38 basic set, roughly: ASCII printable, newline and a few Latin-1 letters.
  const gsm = /^[\n\r -~£¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà]*$/u.test(body);
  const length = [...body].length;
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  return length <= single ? 1 : Math.ceil(length / multi);
}

/** A random hex id of `bytes` bytes. */
export function hexId(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** The phone an SMS to `number` reaches, or null when no active phone has it. */
export async function findPhone(store: Store, number: string, now: number): Promise<InboxRecord | null> {
  if (!isPhoneLocalPart(number)) return null;
  const domains = await store.listDomains();
  for (const domain of [...domains].sort((a, b) => Number(b.isDefault) - Number(a.isDefault))) {
    const inbox = await store.findActiveInboxByAddress(number, domain.domain, now);
    if (inbox) return inbox;
  }
  return null;
}

/** Header values never carry a line break: a sender id or id from a request is folded to one line. */
function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
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

/**
 * Stores an SMS in its phone and publishes it; resolves once committed with
 * the stored message. The caller found the phone (and applied any fault).
 */
export async function deliverSms(deps: SmsDeps, phone: InboxRecord, sms: SmsSubmission): Promise<MessageRecord> {
  const receivedAt = deps.now();
  const envelope = { mailFrom: oneLine(sms.from), rcptTo: [sms.to], clientAddress: sms.clientAddress, helo: null };
  const [stored] = await deps.store.insertMessage([phone.id], smsMessage(sms, receivedAt), receivedAt, new Map([[phone.id, envelope]]));
  if (!stored) throw new Error('inboxkit: the store returned no copy of the SMS');
  if (deps.config.maxMessagesPerInbox !== null) await deps.store.evictOldest(phone.id, deps.config.maxMessagesPerInbox);
  deps.bus.publish({ type: 'message', inboxId: phone.id, message: stored });
  return stored;
}
