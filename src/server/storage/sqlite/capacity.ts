/**
 * How many bytes of mail a SQLite store holds, and making room: the cap of
 * stored bytes in memory mode evicts the oldest message of the largest inbox
 * first, so whoever floods the store pays for it before anyone else.
 *
 * @packageDocumentation
 */
import type { CapacityStore } from '../contract/types.ts';
import type { Sql } from './database.ts';

/** The capacity queries of a SQLite store. */
export function createSqliteCapacity(sql: Sql): CapacityStore {
  return {
    async storedMessageBytes() {
      return Number(sql.get('SELECT COALESCE(SUM(size), 0) AS total FROM messages')?.total ?? 0);
    },
    async evictOldestOfLargestInbox() {
      return sql.transaction(() => {
        const largest = sql.get('SELECT inbox_id FROM messages GROUP BY inbox_id ORDER BY SUM(size) DESC, inbox_id LIMIT 1');
        if (!largest) return null;
        const inboxId = String(largest.inbox_id);
        const oldest = sql.get('SELECT id, size FROM messages WHERE inbox_id = ? ORDER BY seq LIMIT 1', inboxId);
        if (!oldest) return null;
        sql.run('DELETE FROM messages WHERE id = ?', String(oldest.id));
        sql.run('UPDATE inboxes SET message_count = message_count - 1 WHERE id = ?', inboxId);
        return { inboxId, messageId: String(oldest.id), size: Number(oldest.size) };
      });
    },
  };
}
