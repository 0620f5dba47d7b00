/**
 * The email templates of the store: what a caller registers for a provider's
 * template id (`PUT /email/templates/{provider}/{id}`, SES's
 * `CreateEmailTemplate`), kept in the store so a send through any node of a
 * team service renders it.
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
