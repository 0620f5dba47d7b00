/**
 * The domains aggregate on SQLite: the configured mail domains, kept in the
 * order they were given (the first is the default). Domains that leave the
 * configuration are deactivated, never deleted, so their inboxes stay consistent.
 *
 * @packageDocumentation
 */
import type { DomainRecord, DomainStore } from '../contract/types.ts';
import { domainId, flag, mapRow, rowMapper, text } from './database.ts';
import type { Sql } from './database.ts';

const COLUMNS = 'id, domain, is_default';

const toDomain = rowMapper<DomainRecord>({ id: text, domain: text, isDefault: flag });

/** The domain queries of a SQLite store. */
export function createSqliteDomains(sql: Sql): DomainStore {
  const domains: DomainStore = {
    async syncDomains(names) {
      sql.transaction(() => {
        sql.run('UPDATE domains SET active = 0, is_default = 0');
        names.forEach((domain, position) => {
          const name = domain.toLowerCase();
          sql.run(
            `INSERT INTO domains (id, domain, is_default, active, position) VALUES (?, ?, ?, 1, ?)
             ON CONFLICT(domain) DO UPDATE SET is_default = excluded.is_default, active = 1, position = excluded.position`,
            domainId(name), name, position === 0 ? 1 : 0, position,
          );
        });
      });
      return domains.listDomains();
    },
    async listDomains() {
      return sql.all(`SELECT ${COLUMNS} FROM domains WHERE active = 1 ORDER BY position`).map(toDomain);
    },
    async findDomainById(id) {
      return mapRow(sql.get(`SELECT ${COLUMNS} FROM domains WHERE id = ? AND active = 1`, id), toDomain);
    },
    async findDomainByName(domain) {
      return mapRow(sql.get(`SELECT ${COLUMNS} FROM domains WHERE domain = ? COLLATE NOCASE AND active = 1`, domain), toDomain);
    },
  };
  return domains;
}
