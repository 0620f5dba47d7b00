/**
 * SendGrid's Event Webhook, as its settings API configures it and
 * `@sendgrid/eventwebhook` verifies it: a JSON array of events
 * (`processed`, `delivered`, `bounce`, `dropped`) posted to the configured
 * URL, signed (when signing is enabled) with an ECDSA P-256 key whose public
 * half the settings answer (base64 DER): the signature of the timestamp then
 * the body, base64 DER, in `X-Twilio-Email-Event-Webhook-Signature` with the
 * timestamp in `X-Twilio-Email-Event-Webhook-Timestamp`.
 *
 * @packageDocumentation
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** A caller's Event Webhook settings. */
export interface SendGridWebhookSettings {
  enabled: boolean;
  url: string;
  /** The event types posted (`delivered`, `bounce` …); `processed` always. */
  events: Set<string>;
  /** The signing key, once signing was enabled. */
  key: { privateKey: KeyObject; publicKey: string } | null;
}

/** The event types of SendGrid's settings (`delivered: true` …) the service posts. */
export const SENDGRID_EVENT_TYPES = ['processed', 'delivered', 'bounce', 'dropped'] as const;

/** A new signing key pair: the public half as SendGrid answers it (base64 DER). */
export function sendGridSigningKey(): { privateKey: KeyObject; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privateKey, publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64') };
}

/** One event about one recipient of a send. */
export function sendGridEvent(event: string, email: string, messageId: string, categories: readonly string[], reason?: string): Record<string, unknown> {
  return {
    email,
    timestamp: Math.floor(Date.now() / 1000),
    event,
    sg_event_id: randomBytes(16).toString('base64url'),
    sg_message_id: `${messageId}.filter0001.${randomBytes(4).toString('hex')}.0`,
    'smtp-id': `<${messageId}@inboxkit>`,
    ...(categories.length > 0 ? { category: [...categories] } : {}),
    ...(reason !== undefined ? { reason, status: reason.slice(0, 5).trim(), type: event === 'bounce' ? 'bounce' : undefined } : {}),
  };
}

/** The signature headers of a body, signed with a settings' key. */
export function sendGridSignatureHeaders(privateKey: KeyObject, body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = sign('sha256', Buffer.from(timestamp + body), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
  return { 'X-Twilio-Email-Event-Webhook-Signature': signature, 'X-Twilio-Email-Event-Webhook-Timestamp': timestamp };
}
