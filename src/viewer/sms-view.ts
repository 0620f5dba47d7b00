/**
 * Phones and their SMS in the viewer: a phone is an inbox whose address is
 * its number, an SMS a message of it with no subject, sent to the number,
 * and headers that name the provider API it came through. The list shows an
 * SMS by its text; the pane shows the text as the phone would, the code
 * `message.otp()` picks, and how it came.
 *
 * @packageDocumentation
 */
import { extractOtp } from '../extract/index.ts';
import type { Inbox, Message, MessageSummary } from '../wire/schemas.ts';
import { providerLabel } from '../wire/providers.ts';
import { h } from './dom.ts';

/** An E.164 number (`wire/phones.ts` has the same, but importing it would bring its schemas into the bundle). */
const E164 = /^\+[1-9]\d{6,14}$/;


/** The phone number of an inbox that is a phone, or null. */
export function phoneNumberOf(inbox: Inbox | undefined): string | null {
  if (!inbox) return null;
  return inbox.phoneNumber ?? (E164.test(inbox.localPart) ? inbox.localPart : null);
}

/** Whether a message summary is an SMS: no subject, one recipient that is a number. */
export function isSmsSummary(message: MessageSummary): boolean {
  return message.subject === '' && message.to.length === 1 && E164.test(message.to[0]?.address ?? '');
}

/** How an SMS came, from its headers; null for an email. */
export interface SmsInfo {
  /** The provider API, as named in the viewer. */
  provider: string;
  /** The provider's id of the message. */
  providerId: string;
  /** Parts a carrier would split it into. */
  segments: string;
}

/** How a message came when it is an SMS (it has the `x-inboxkit-sms` header), else null. */
export function smsInfo(message: Message): SmsInfo | null {
  const provider = message.headers['x-inboxkit-sms'];
  if (!provider) return null;
  return { provider: providerLabel(provider) ?? provider, providerId: message.headers['x-inboxkit-sms-id'] ?? '', segments: message.headers['x-inboxkit-sms-segments'] ?? '1' };
}

/** The heading of an SMS's pane: who sent it. */
export function smsHeading(message: Message): string {
  return `SMS from ${message.from?.address || 'an unknown sender'}`;
}

/** Rows of the SMS's details, as `dt`/`dd` pairs. */
export function smsMetaRows(message: Message, info: SmsInfo): Array<[string, string]> {
  return [
    ['From', message.from?.address ?? '(none)'],
    ['To', message.to[0]?.address ?? '(none)'],
    ['Via', info.provider],
    ['Provider id', info.providerId || '(none)'],
    ['Parts', info.segments],
  ];
}

/** The SMS as the phone shows it, and the code `message.otp()` returns (the Extraction tab explains it). */
export function smsPanel(message: Message): Node {
  const text = message.text ?? '';
  let verdict: Node;
  try {
    verdict = h('p', {}, 'message.otp() returns ', h('code', { class: 'otp' }, extractOtp({ html: null, text, subject: '' })), '. The Extraction tab shows its candidates and why.');
  } catch (error) {
    verdict = h('p', {}, 'message.otp() finds no code: ', (error as Error).message.split('\n')[0] ?? '');
  }
  return h('div', { class: 'sms' }, h('p', { class: 'sms-bubble', 'aria-label': 'SMS text' }, text), verdict);
}
