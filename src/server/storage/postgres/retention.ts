/**
 * The retention aggregate on PostgreSQL: deleting mail older than the service
 * keeps it, by every node at once without two of them fighting: each inbox is
 * swept under its row lock, taken with SKIP LOCKED, so an inbox another node is
 * sweeping (or delivering to) is left for that node or the next sweep.
 *
 * @packageDocumentation
 */
import type { RetentionStore } from '../contract/types.ts';
import type { PgSql } from './database.ts';

/** The retention queries of a PostgreSQL store. */
export function createPostgresRetention(sql: PgSql): RetentionStore {
  return {
    async sweepOldMessages(receivedBefore, maxInboxes) {
      const inboxes = await sql.all('SELECT DISTINCT inbox_id FROM messages WHERE received_at < $1 LIMIT $2', receivedBefore, maxInboxes);
      let deleted = 0;
      for (const row of inboxes) {
        deleted += await sql.transaction(async (tx) => {
          // The inbox row lock orders this with deliveries and evictions, as evictOldest does.
          const locked = await tx.get('SELECT id FROM inboxes WHERE id = $1 FOR UPDATE SKIP LOCKED', row.inbox_id);
          if (!locked) return 0;
          const gone = await tx.run('DELETE FROM messages WHERE inbox_id = $1 AND received_at < $2', row.inbox_id, receivedBefore);
          if (gone.changes > 0) await tx.run('UPDATE inboxes SET message_count = message_count - $1 WHERE id = $2', gone.changes, row.inbox_id);
          return gone.changes;
        });
      }
      return deleted;
    },
  };
}
