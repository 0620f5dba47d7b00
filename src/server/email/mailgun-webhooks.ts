/**
 * Mailgun's webhooks, as `mailgun.js`'s `webhooks.create(domain, id, url)`
 * and the form API (`POST /v3/domains/{domain}/webhooks`, `id` and `url`)
 * register them: one URL list per domain and event id (`delivered`,
 * `permanent_fail`, `temporary_fail`; the others are kept and never
 * posted), and one JSON post per event in Mailgun's shape: `event-data`
 * (`delivered`, or `failed` with its `severity`) and `signature { timestamp,
 * token, signature }`, the HMAC-SHA256 of `timestamp + token` with the
 * webhook signing key, in hex, as Mailgun's docs tell apps to verify it.
 *
 * The signing key is the API key the webhook was registered with (as
 * Mailgun's was before its separate HTTP signing key), answered by
 * `GET /v5/accounts/http_signing_key` too.
 *
 * @packageDocumentation
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/** The event ids Mailgun's webhooks take. */
export const MAILGUN_WEBHOOK_IDS = ['accepted', 'delivered', 'opened', 'clicked', 'unsubscribed', 'complained', 'permanent_fail', 'temporary_fail'] as const;
/** URLs one event id of one domain keeps (Mailgun's limit). */
export const MAILGUN_MAX_URLS = 3;
/** Domains with webhooks one caller keeps, per node. */
export const MAILGUN_MAX_DOMAINS = 50;

/** The webhooks of one caller's domain: URLs by event id, and the key they are signed with. */
export interface MailgunDomainHooks {
  urls: Map<string, string[]>;
  signingKey: string;
}

/** What an event is about. */
export interface MailgunEventSubject {
  messageId: string;
  recipient: string;
  from: string;
  subject: string;
  tags: string[];
}

/** An event's outcome: delivered, or failed with the inbox's fault. */
export type MailgunOutcome = { event: 'delivered' } | { event: 'failed'; severity: 'permanent' | 'temporary'; reason: 'bounce' | 'suppress-bounce' | 'generic'; code: number; message: string };

/** The webhook id an outcome is posted to. */
export function webhookIdOf(outcome: MailgunOutcome): string {
  return outcome.event === 'delivered' ? 'delivered' : outcome.severity === 'permanent' ? 'permanent_fail' : 'temporary_fail';
}

/** Mailgun's `signature` object for a signing key: a fresh timestamp and token, and their HMAC. */
export function mailgunSignature(signingKey: string, now = Date.now()): { timestamp: string; token: string; signature: string } {
  const timestamp = String(Math.floor(now / 1000));
  const token = randomBytes(25).toString('hex');
  return { timestamp, token, signature: createHmac('sha256', signingKey).update(timestamp + token).digest('hex') };
}

/** The body Mailgun posts for one recipient's event. */
export function mailgunEvent(subject: MailgunEventSubject, outcome: MailgunOutcome, signingKey: string): Record<string, unknown> {
  const status = outcome.event === 'delivered' ? { code: 250, message: 'OK', description: '', 'attempt-no': 1 } : { code: outcome.code, message: outcome.message, description: outcome.message, 'attempt-no': 1 };
  const failure = outcome.event === 'failed' ? { severity: outcome.severity, reason: outcome.reason } : {};
  return {
    signature: mailgunSignature(signingKey),
    'event-data': {
      id: randomUUID(),
      event: outcome.event,
      ...failure,
      timestamp: Date.now() / 1000,
      'log-level': outcome.event === 'delivered' ? 'info' : outcome.severity === 'permanent' ? 'error' : 'warn',
      recipient: subject.recipient,
      'recipient-domain': subject.recipient.split('@')[1] ?? '',
      tags: subject.tags,
      envelope: { transport: 'smtp', sender: subject.from, targets: subject.recipient },
      message: { headers: { to: subject.recipient, 'message-id': subject.messageId, from: subject.from, subject: subject.subject }, attachments: [] },
      'delivery-status': status,
      flags: { 'is-test-mode': false, 'is-authenticated': true },
      'user-variables': {},
    },
  };
}

/** The answer to a webhook's registration, as `mailgun.js` reads it (`webhook.urls`). */
export function webhookAnswer(message: string, urls: readonly string[]): Record<string, unknown> {
  return { message, webhook: { urls: [...urls] } };
}
