/**
 * Resend's webhooks, as `resend.webhooks.create()` registers them and its
 * `webhooks.verify()` (Svix) checks them: a signing secret `whsec_<base64>`,
 * each event JSON `{ type, created_at, data }` posted with `svix-id`,
 * `svix-timestamp` and `svix-signature` (`v1,` then the base64 HMAC-SHA256
 * of `id.timestamp.body` keyed with the secret's bytes).
 *
 * @packageDocumentation
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/** The events of an email Resend posts. */
export type ResendEventType = 'email.sent' | 'email.delivered' | 'email.bounced' | 'email.suppressed';

/** A registered webhook. */
export interface ResendWebhook {
  id: string;
  endpoint: string;
  events: readonly string[];
  secret: string;
}

/** Webhooks one caller keeps, per node. */
export const MAX_RESEND_WEBHOOKS_PER_CALLER = 20;

/** A new webhook's id and signing secret. */
export function newResendWebhook(endpoint: string, events: readonly string[]): ResendWebhook {
  return { id: randomUUID(), endpoint, events, secret: `whsec_${randomBytes(24).toString('base64')}` };
}

/** The body of an event about one recipient of an email. */
export function resendEventBody(type: ResendEventType, email: { id: string; from: string; to: string; subject: string }, bounce?: string): string {
  const now = new Date().toISOString();
  const data: Record<string, unknown> = { created_at: now, email_id: email.id, from: email.from, to: [email.to], subject: email.subject };
  if (bounce !== undefined) data.bounce = { message: bounce, type: 'Permanent', subType: type === 'email.suppressed' ? 'Suppressed' : 'General' };
  return JSON.stringify({ type, created_at: now, data });
}

/** The Svix headers of a body, signed with a webhook's secret. */
export function svixHeaders(secret: string, body: string): Record<string, string> {
  const id = `msg_${randomBytes(12).toString('hex')}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'content-type': 'application/json', 'svix-id': id, 'svix-timestamp': timestamp, 'svix-signature': `v1,${signature}` };
}
