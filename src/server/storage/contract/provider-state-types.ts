/**
 * What the store keeps for the providers' APIs (issue 48), so that any node
 * of a team service answers as the one that took a registration: the email
 * templates a caller registers for a provider's template id
 * (`PUT /email/templates/{provider}/{id}`, SES's `CreateEmailTemplate`), and
 * the idempotency keys of sends (Resend's `Idempotency-Key`).
 *
 * @packageDocumentation
 */

/** A template as stored: Handlebars sources. */
export interface EmailTemplateRow {
  subject: string;
  html: string | null;
  text: string | null;
}

/** Where a template is found: its caller (`callerOf`'s key), the provider, the provider's template id. */
export interface EmailTemplateKey {
  owner: string;
  provider: string;
  id: string;
}

/** The email templates of the store. */
export interface EmailTemplateStore {
  /**
   * Registers (or replaces) a template at `now`; the caller's oldest go, in
   * the same transaction, beyond `maxPerOwner`.
   */
  putEmailTemplate(key: EmailTemplateKey, template: EmailTemplateRow, now: number, maxPerOwner: number): Promise<void>;
  /** The template of a key, or null. */
  findEmailTemplate(key: EmailTemplateKey): Promise<EmailTemplateRow | null>;
  /** Removes a template; whether it was there. */
  deleteEmailTemplate(key: EmailTemplateKey): Promise<boolean>;
}

/** Whose key: the caller (`callerOf`'s key) and the key (with the route it was used on). */
export interface IdempotencyKeyRef {
  owner: string;
  key: string;
}

/** The bounds a claim keeps. */
export interface IdempotencyBounds {
  /** Keys one caller keeps (its oldest forgotten first). */
  perOwner: number;
  /** Keys the store keeps. */
  total: number;
  /** How long a key is remembered, in ms. */
  ttlMs: number;
}

/** What a claim found: a new key (now held, no answer yet), or the one seen before. */
export type IdempotencyClaim = { kind: 'new' } | { kind: 'seen'; bodyHash: string; answer: string | null };

/** The idempotency keys of the store. */
export interface IdempotencyKeyStore {
  /**
   * Claims a key for a body (its hash) at `now`, atomically: the first claim
   * holds it (answer pending); any later one finds it. Expired keys and those
   * beyond the bounds go in the same transaction.
   */
  claimIdempotencyKey(ref: IdempotencyKeyRef, bodyHash: string, now: number, bounds: IdempotencyBounds): Promise<IdempotencyClaim>;
  /** Records the answer of a held key (JSON). */
  settleIdempotencyKey(ref: IdempotencyKeyRef, answer: string): Promise<void>;
  /** Forgets a key (its send failed: it may be tried again). */
  forgetIdempotencyKey(ref: IdempotencyKeyRef): Promise<void>;
}
