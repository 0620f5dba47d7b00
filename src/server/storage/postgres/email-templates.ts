/**
 * The email templates on PostgreSQL: a registration and the removal of the
 * caller's oldest beyond its bound in one transaction.
 *
 * @packageDocumentation
 */
import type { EmailTemplateStore } from '../contract/types.ts';
import { templateTrim, templateUpsert, toEmailTemplate } from '../contract/email-template-rows.ts';
import { mapRow } from './database.ts';
import type { PgSql } from './database.ts';

/** The email template queries of a PostgreSQL store. */
export function createPostgresEmailTemplates(sql: PgSql): EmailTemplateStore {
  return {
    async putEmailTemplate(key, template, now, maxPerOwner) {
      await sql.transaction(async (tx) => {
        await tx.run(templateUpsert('$1', '$2', '$3', '$4', '$5', '$6', '$7'), key.owner, key.provider, key.id, template.subject, template.html, template.text, now);
        await tx.run(templateTrim('$1', '$1', '$2'), key.owner, maxPerOwner);
      });
    },
    async findEmailTemplate(key) {
      return mapRow(await sql.get('SELECT * FROM email_templates WHERE owner_key = $1 AND provider = $2 AND template_id = $3', key.owner, key.provider, key.id), toEmailTemplate);
    },
    async deleteEmailTemplate(key) {
      return (await sql.run('DELETE FROM email_templates WHERE owner_key = $1 AND provider = $2 AND template_id = $3', key.owner, key.provider, key.id)).changes > 0;
    },
  };
}
