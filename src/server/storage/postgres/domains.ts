/**
 * The domains aggregate on PostgreSQL (twin of `../sqlite/domains.ts`). Nodes
 * that start together sync under one transaction-scoped advisory lock.
 *
 * @packageDocumentation
 */
import { domainId } from '../contract/ids.ts';
import type { DomainRecord, DomainStore } from '../contract/types.ts';
import { flag, mapRow, rowMapper, text } from './database.ts';
import type { PgSql } from './database.ts';

const COLUMNS = 'id, domain, is_default';

const toDomain = rowMapper<DomainRecord>({ id: text, domain: text, isDefault: flag });

/** Key of the advisory lock around a domain sync ("doms" in ASCII). */
const SYNC_LOCK = 0x646f6d73;

/** The domain queries of a PostgreSQL store. */
export function createPostgresDomains(sql: PgSql): DomainStore {
  const domains: DomainStore = {
    async syncDomains(names) {
      await sql.transaction(async (tx) => {
        await tx.run('SELECT pg_advisory_xact_lock($1)', SYNC_LOCK);
        await tx.run('UPDATE domains SET active = false, is_default = false');
        for (const [position, domain] of names.entries()) {
          const name = domain.toLowerCase();
          await tx.run(
            `INSERT INTO domains (id, domain, is_default, active, position) VALUES ($1, $2, $3, true, $4)
             ON CONFLICT (domain) DO UPDATE SET is_default = excluded.is_default, active = true, position = excluded.position`,
            domainId(name), name, position === 0, position,
          );
        }
      });
      return domains.listDomains();
    },
    async listDomains() {
      return (await sql.all(`SELECT ${COLUMNS} FROM domains WHERE active ORDER BY position`)).map(toDomain);
    },
    async findDomainById(id) {
      return mapRow(await sql.get(`SELECT ${COLUMNS} FROM domains WHERE id = $1 AND active`, id), toDomain);
    },
    async findDomainByName(domain) {
      return mapRow(await sql.get(`SELECT ${COLUMNS} FROM domains WHERE domain = lower($1) AND active`, domain), toDomain);
    },
  };
  return domains;
}
