/**
 * Postmark's webhooks, as `client.createWebhook()` registers them: a URL, the
 * message stream, the triggers (`Delivery`, `Bounce`), optional Basic
 * credentials and headers Postmark sends with each post; one JSON event per
 * post (`RecordType: 'Delivery'` or `'Bounce'`), unsigned, as Postmark's are.
 *
 * @packageDocumentation
 */
import { randomInt } from 'node:crypto';

/** A registered webhook. */
export interface PostmarkWebhook {
  id: number;
  url: string;
  messageStream: string;
  delivery: boolean;
  bounce: boolean;
  /** Headers sent with each post (its Basic credentials, its own headers). */
  headers: Record<string, string>;
}

/** Webhooks one caller keeps, per node. */
export const MAX_POSTMARK_WEBHOOKS_PER_CALLER = 20;

type Json = Record<string, unknown>;

function enabled(triggers: Json, name: string): boolean {
  const trigger = triggers[name];
  return typeof trigger === 'object' && trigger !== null && (trigger as Json).Enabled === true;
}

/** Reads `createWebhook()`'s body, or the error message naming what is wrong (the URL is checked by the caller). */
export function parsePostmarkWebhook(body: unknown): PostmarkWebhook | { error: string } {
  const json = (typeof body === 'object' && body !== null ? body : {}) as Json;
  if (typeof json.Url !== 'string' || json.Url === '') return { error: "Invalid webhook request: 'Url' is required." };
  const triggers = (typeof json.Triggers === 'object' && json.Triggers !== null ? json.Triggers : {}) as Json;
  const headers: Record<string, string> = {};
  const auth = (typeof json.HttpAuth === 'object' && json.HttpAuth !== null ? json.HttpAuth : null) as Json | null;
  if (auth && typeof auth.Username === 'string') headers.authorization = `Basic ${Buffer.from(`${auth.Username}:${String(auth.Password ?? '')}`).toString('base64')}`;
  if (Array.isArray(json.HttpHeaders)) for (const h of json.HttpHeaders as Json[]) if (typeof h?.Name === 'string' && /^[!-9;-~]+$/.test(h.Name)) headers[h.Name] = String(h.Value ?? '').replace(/[\r\n]+/g, ' ');
  return { id: randomInt(1, 2 ** 31), url: json.Url, messageStream: typeof json.MessageStream === 'string' ? json.MessageStream : 'outbound', delivery: enabled(triggers, 'Delivery'), bounce: enabled(triggers, 'Bounce'), headers };
}

/** `createWebhook()`'s answer. */
export function postmarkWebhookAnswer(hook: PostmarkWebhook): Json {
  return { ID: hook.id, Url: hook.url, MessageStream: hook.messageStream, HttpAuth: null, HttpHeaders: [], Triggers: { Open: { Enabled: false, PostFirstOpenOnly: false }, Click: { Enabled: false }, Delivery: { Enabled: hook.delivery }, Bounce: { Enabled: hook.bounce, IncludeContent: false }, SpamComplaint: { Enabled: false, IncludeContent: false }, SubscriptionChange: { Enabled: false } } };
}

/** The event of one recipient: delivered, or bounced with the inbox's fault. */
export function postmarkEvent(kind: 'Delivery' | 'Bounce', email: { messageId: string; recipient: string; from: string; subject: string; tag: string; stream: string }, reason = ''): Json {
  const at = new Date().toISOString();
  if (kind === 'Delivery') return { RecordType: 'Delivery', ServerID: 1, MessageStream: email.stream, MessageID: email.messageId, Recipient: email.recipient, Tag: email.tag, DeliveredAt: at, Details: 'Test delivery by inboxkit', Metadata: {} };
  return { RecordType: 'Bounce', ID: randomInt(1, 2 ** 31), Type: 'HardBounce', TypeCode: 1, Name: 'Hard bounce', Tag: email.tag, MessageID: email.messageId, ServerID: 1, MessageStream: email.stream, Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).', Details: reason, Email: email.recipient, From: email.from, BouncedAt: at, DumpAvailable: false, Inactive: true, CanActivate: true, Subject: email.subject, Metadata: {} };
}
