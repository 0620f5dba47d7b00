/**
 * Plivo's Messages API wire format, as its REST API documents it and its
 * `plivo` SDK reads it: the send answer (`202 { api_id, message,
 * message_uuid: [...] }`), the error body `{ api_id, error }`, the delivery
 * report form (`MessageUUID`, `Status`, `ErrorCode` …) and its
 * `X-Plivo-Signature-V2` (base64 HMAC-SHA256 of the URL without its query,
 * then the nonce, keyed with the auth token).
 *
 * @packageDocumentation
 */
import { createHmac, randomUUID } from 'node:crypto';
import { hexId } from './kit.ts';

/** Plivo's limit of a text, in characters. */
export const PLIVO_MAX_TEXT = 1600;

/** A Plivo answer: the status and its JSON body. */
export interface PlivoAnswer {
  status: 202 | 400 | 401 | 404;
  body: Record<string, unknown>;
}

/** A Plivo error: `{ api_id, error }`. */
export function plivoError(status: 400 | 401 | 404, error: string): PlivoAnswer {
  return { status, body: { api_id: randomUUID(), error } };
}

/** Plivo's answer to a send: every destination's message UUID, queued. */
export function plivoQueued(uuids: string[]): PlivoAnswer {
  return { status: 202, body: { api_id: randomUUID(), message: 'message(s) queued', message_uuid: uuids } };
}

/** A message UUID as Plivo makes them. */
export function plivoMessageUuid(): string {
  return randomUUID();
}

/** The fields of a delivery report. */
export interface PlivoReport {
  uuid: string;
  from: string;
  to: string;
  status: 'queued' | 'sent' | 'delivered' | 'undelivered' | 'failed';
  /** Plivo's error code: 50 invalid destination, 200 opted out (STOP), 70 permanently unavailable; '' when delivered. */
  errorCode: string;
  segments: number;
}

/** The form of a delivery report, as Plivo posts it to the `url` of a send. */
export function plivoReportForm(report: PlivoReport): Record<string, string> {
  return {
    MessageUUID: report.uuid,
    From: report.from,
    To: report.to,
    Status: report.status,
    ErrorCode: report.errorCode,
    TotalAmount: '0.00000',
    TotalRate: '0.00000',
    Units: String(report.segments),
    MessageTime: new Date().toISOString().replace('T', ' ').slice(0, 19),
    ParentMessageUUID: report.uuid,
    PartInfo: `1 of ${report.segments}`,
  };
}

/** The signature headers of a webhook to `url` (V2: the URL without its query, then the nonce). */
export function plivoSignatureHeaders(authToken: string, url: string): Record<string, string> {
  const nonce = hexId(10);
  const parsed = new URL(url);
  const base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  const signature = createHmac('sha256', authToken).update(base + nonce).digest('base64');
  return { 'X-Plivo-Signature-V2': signature, 'X-Plivo-Signature-V2-Nonce': nonce };
}
