/**
 * The email templates on SQLite: a registration and the removal of the
 * caller's oldest beyond its bound in one write transaction.
 *
 * @packageDocumentation
 */
import type { EmailTemplateStore } from '../contract/types.ts';
import { templateTrim, templateUpsert, toEmailTemplate } from '../contract/email-template-rows.ts';
import { mapRow } from './database.ts';
import type { Sql } from './database.ts';

/** The email template queries of a SQLite store. */
export function createSqliteEmailTemplates(sql: Sql): EmailTemplateStore {
  return {
    async putEmailTemplate(key, template, now, maxPerOwner) {
      sql.transaction(() => {
        sql.run(templateUpsert('?', '?', '?', '?', '?', '?', '?'), key.owner, key.provider, key.id, template.subject, template.html, template.text, now);
        sql.run(templateTrim('?', '?', '?'), key.owner, key.owner, maxPerOwner);
      });
    },
    async findEmailTemplate(key) {
      return mapRow(sql.get('SELECT * FROM email_templates WHERE owner_key = ? AND provider = ? AND template_id = ?', key.owner, key.provider, key.id), toEmailTemplate);
    },
    async deleteEmailTemplate(key) {
      return Number(sql.run('DELETE FROM email_templates WHERE owner_key = ? AND provider = ? AND template_id = ?', key.owner, key.provider, key.id).changes) > 0;
    },
  };
}
