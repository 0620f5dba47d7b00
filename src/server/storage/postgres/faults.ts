/**
 * Delivery faults on PostgreSQL (twin of `../sqlite/faults.ts`): every node on
 * the database applies the same faults, and an attempt is counted under the
 * fault's row lock, so `count` holds across nodes.
 *
 * @packageDocumentation
 */
import type { FaultStore } from '../contract/types.ts';
import { toFault } from '../contract/fault-row.ts';
import { mapRow } from './database.ts';
import type { PgSql } from './database.ts';


/** The fault queries of a PostgreSQL store. */
export function createPostgresFaults(sql: PgSql): FaultStore {
  return {
    async putDeliveryFault(f) {
      await sql.run(
        `INSERT INTO delivery_faults (inbox_id, code, enhanced_status, message, remaining, delay_ms, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (inbox_id) DO UPDATE SET code = excluded.code, enhanced_status = excluded.enhanced_status, message = excluded.message,
           remaining = excluded.remaining, delay_ms = excluded.delay_ms, created_at = excluded.created_at`,
        f.inboxId, f.code, f.enhancedStatus, f.message, f.remaining, f.delayMs, f.createdAt,
      );
    },
    async findDeliveryFault(inboxId) {
      return mapRow(await sql.get('SELECT * FROM delivery_faults WHERE inbox_id = $1', inboxId), toFault);
    },
    async deleteDeliveryFault(inboxId) {
      return (await sql.run('DELETE FROM delivery_faults WHERE inbox_id = $1', inboxId)).changes > 0;
    },
    async takeDeliveryFault(inboxId) {
      // Most recipients have no fault: one read, no transaction.
      const seen = mapRow(await sql.get('SELECT * FROM delivery_faults WHERE inbox_id = $1', inboxId), toFault);
      if (!seen || seen.remaining === null) return seen;
      return sql.transaction(async (tx) => {
        const fault = mapRow(await tx.get('SELECT * FROM delivery_faults WHERE inbox_id = $1 FOR UPDATE', inboxId), toFault);
        if (!fault || fault.remaining === null) return fault;
        if (fault.remaining <= 1) await tx.run('DELETE FROM delivery_faults WHERE inbox_id = $1', inboxId);
        else await tx.run('UPDATE delivery_faults SET remaining = remaining - 1 WHERE inbox_id = $1', inboxId);
        return fault;
      });
    },
  };
}
