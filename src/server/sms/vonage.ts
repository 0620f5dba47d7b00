/**
 * Vonage's SMS API wire format (`POST https://rest.nexmo.com/sms/json`): the
 * answer is always HTTP 200 with a status per message part, `"0"` for
 * success and Vonage's documented codes otherwise (2 missing parameter, 3
 * invalid parameter, 4 invalid credentials, 29 non-whitelisted destination).
 *
 * @packageDocumentation
 */
import { hexId } from './kit.ts';

/** Longest text the SMS API takes, in characters. */
export const VONAGE_MAX_TEXT = 3200;

/** A Vonage answer with one failed message. */
export function vonageError(status: string, errorText: string): Record<string, unknown> {
  return { 'message-count': '1', messages: [{ status, 'error-text': errorText }] };
}

/** Vonage's message id: 16 hex digits, upper case. */
export function vonageMessageId(): string {
  return hexId(8).toUpperCase();
}

/** The answer of a sent SMS, one entry per part as Vonage counts them. */
export function vonageSent(to: string, ids: string[], clientRef: string | null): Record<string, unknown> {
  return {
    'message-count': String(ids.length),
    messages: ids.map((id) => ({
      to,
      'message-id': id,
      status: '0',
      'remaining-balance': '10.00000000',
      'message-price': '0.00000000',
      network: '00000',
      ...(clientRef ? { 'client-ref': clientRef } : {}),
    })),
  };
}

/** Vonage numbers are E.164 without the `+`; a `+` or `00` prefix is accepted too. */
export function vonageNumber(to: string): string {
  return `+${to.trim().replace(/^\+|^00/, '')}`;
}

/** What a delivery receipt reports. */
export interface VonageReceipt {
  /** The recipient, without the `+`. */
  msisdn: string;
  /** The sender the app gave (`from`). */
  sender: string;
  messageId: string;
  status: 'delivered' | 'failed';
  /** `0` delivered; `2` Absent Subscriber - Temporary (an unreachable handset). */
  errCode: '0' | '2';
  apiKey: string;
  clientRef: string | null;
  at: number;
}

/** A delivery receipt (DLR) as Vonage sends it to the `callback` webhook, one per part. */
export function vonageReceipt(r: VonageReceipt): Record<string, string> {
  const iso = new Date(r.at).toISOString();
  return {
    msisdn: r.msisdn,
    to: r.sender,
    'network-code': '00000',
    messageId: r.messageId,
    price: '0.00000000',
    status: r.status,
    scts: iso.slice(2, 16).replace(/[-T:]/g, ''),
    'err-code': r.errCode,
    'api-key': r.apiKey,
    'message-timestamp': iso.slice(0, 19).replace('T', ' '),
    ...(r.clientRef ? { 'client-ref': r.clientRef } : {}),
  };
}
