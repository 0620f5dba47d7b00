/**
 * How many bytes of mail a PostgreSQL store holds, and making room (twin of
 * `../sqlite/capacity.ts`): the oldest message of the largest inbox goes first.
 *
 * @packageDocumentation
 */
import type { CapacityStore } from '../contract/types.ts';
import type { PgSql } from './database.ts';

/** The capacity queries of a PostgreSQL store. */
export function createPostgresCapacity(sql: PgSql): CapacityStore {
  return {
    async storedMessageBytes() {
      return Number((await sql.get('SELECT COALESCE(SUM(size), 0)::bigint AS total FROM messages'))?.total ?? 0);
    },
    async evictOldestOfLargestInbox() {
      return sql.transaction(async (tx) => {
        const largest = await tx.get('SELECT inbox_id FROM messages GROUP BY inbox_id ORDER BY SUM(size) DESC, inbox_id LIMIT 1');
        if (!largest) return null;
        const inboxId = String(largest.inbox_id);
        // The inbox row lock orders this eviction with deliveries and the per-inbox eviction.
        await tx.get('SELECT id FROM inboxes WHERE id = $1 FOR UPDATE', inboxId);
        const oldest = await tx.get('DELETE FROM messages WHERE id = (SELECT id FROM messages WHERE inbox_id = $1 ORDER BY seq LIMIT 1) RETURNING id, size', inboxId);
        if (!oldest) return null;
        await tx.run('UPDATE inboxes SET message_count = message_count - 1 WHERE id = $1', inboxId);
        return { inboxId, messageId: String(oldest.id), size: Number(oldest.size) };
      });
    },
  };
}
