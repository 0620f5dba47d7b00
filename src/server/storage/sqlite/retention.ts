/**
 * The retention aggregate on SQLite: deleting mail older than the service keeps it.
 *
 * @packageDocumentation
 */
import type { RetentionStore } from '../contract/types.ts';
import type { Sql } from './database.ts';

/** The retention queries of a SQLite store (one process: nothing to share). */
export function createSqliteRetention(sql: Sql): RetentionStore {
  return {
    async sweepOldMessages(receivedBefore, maxInboxes) {
      return sql.transaction(() => {
        const inboxes = sql.all('SELECT DISTINCT inbox_id FROM messages WHERE received_at < ? LIMIT ?', receivedBefore, maxInboxes);
        let deleted = 0;
        for (const row of inboxes) {
          const inboxId = String(row.inbox_id);
          const gone = Number(sql.run('DELETE FROM messages WHERE inbox_id = ? AND received_at < ?', inboxId, receivedBefore).changes);
          sql.run('UPDATE inboxes SET message_count = message_count - ? WHERE id = ?', gone, inboxId);
          deleted += gone;
        }
        return deleted;
      });
    },
  };
}
