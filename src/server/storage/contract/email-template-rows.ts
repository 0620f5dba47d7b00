/**
 * The email template rows both backends share: the upsert, the bound's
 * trim, and the row reader. Placeholders are given by the backend (`?`, `$1`).
 *
 * @packageDocumentation
 */
import type { EmailTemplateRow } from './provider-state-types.ts';
import { text, textOrNull } from './rows.ts';
import type { Row } from './rows.ts';

/** Inserts a template, or replaces the one of its key (its time renewed). */
export function templateUpsert(...p: [string, string, string, string, string, string, string]): string {
  return `INSERT INTO email_templates (owner_key, provider, template_id, subject, html, text_body, updated_at) VALUES (${p.join(', ')})
    ON CONFLICT (owner_key, provider, template_id) DO UPDATE SET subject = excluded.subject, html = excluded.html, text_body = excluded.text_body, updated_at = excluded.updated_at`;
}

/** Removes an owner's templates beyond the newest `limit` (owner, owner, limit). */
export function templateTrim(owner: string, ownerAgain: string, limit: string): string {
  return `DELETE FROM email_templates WHERE owner_key = ${owner} AND (provider, template_id) NOT IN (SELECT provider, template_id FROM email_templates WHERE owner_key = ${ownerAgain} ORDER BY updated_at DESC, provider DESC, template_id DESC LIMIT ${limit})`;
}

/** A template of its row. */
export function toEmailTemplate(row: Row): EmailTemplateRow {
  return { subject: text(row.subject), html: textOrNull(row.html), text: textOrNull(row.text_body) };
}
