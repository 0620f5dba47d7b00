/**
 * Delivery faults on SQLite: one row per inbox, gone with the inbox (foreign
 * key cascade), counted down by each delivery attempt.
 *
 * @packageDocumentation
 */
import type { FaultStore } from '../contract/types.ts';
import { toFault } from '../contract/fault-row.ts';
import { mapRow } from './database.ts';
import type { Sql } from './database.ts';


/** The fault queries of a SQLite store. */
export function createSqliteFaults(sql: Sql): FaultStore {
  const find = (inboxId: string) => mapRow(sql.get('SELECT * FROM delivery_faults WHERE inbox_id = ?', inboxId), toFault);
  return {
    async putDeliveryFault(f) {
      sql.run(
        `INSERT INTO delivery_faults (inbox_id, code, enhanced_status, message, remaining, delay_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (inbox_id) DO UPDATE SET code = excluded.code, enhanced_status = excluded.enhanced_status, message = excluded.message,
           remaining = excluded.remaining, delay_ms = excluded.delay_ms, created_at = excluded.created_at`,
        f.inboxId, f.code, f.enhancedStatus, f.message, f.remaining, f.delayMs, f.createdAt,
      );
    },
    async findDeliveryFault(inboxId) {
      return find(inboxId);
    },
    async deleteDeliveryFault(inboxId) {
      return Number(sql.run('DELETE FROM delivery_faults WHERE inbox_id = ?', inboxId).changes) > 0;
    },
    async takeDeliveryFault(inboxId) {
      return sql.transaction(() => {
        const fault = find(inboxId);
        if (!fault || fault.remaining === null) return fault;
        if (fault.remaining <= 1) sql.run('DELETE FROM delivery_faults WHERE inbox_id = ?', inboxId);
        else sql.run('UPDATE delivery_faults SET remaining = remaining - 1 WHERE inbox_id = ?', inboxId);
        return fault;
      });
    },
  };
}
