/**
 * The retention aggregate on SQLite: deleting mail older than the service keeps it.
 *
 * @packageDocumentation
 */
import type { RetentionStore } from '../contract/types.ts';
import { SWEEP_OWNER_SQL } from '../contract/retention-types.ts';

/** The inboxes holding mail past its retention, oldest mail first and fairly between owners (see `sweepOldMessages`). */
const OLD_MAIL_IN_TURN = `SELECT inbox_id FROM (
  SELECT o.inbox_id, o.oldest, ROW_NUMBER() OVER (PARTITION BY ${SWEEP_OWNER_SQL} ORDER BY o.oldest, o.inbox_id) AS turn
  FROM (SELECT inbox_id, MIN(received_at) AS oldest FROM messages WHERE received_at < ? GROUP BY inbox_id) o
  JOIN inboxes ON inboxes.id = o.inbox_id
) turns ORDER BY turn, oldest, inbox_id LIMIT ?`;
import type { Sql } from './database.ts';

/** The retention queries of a SQLite store (one process: nothing to share). */
export function createSqliteRetention(sql: Sql): RetentionStore {
  return {
    async sweepOldMessages(receivedBefore, maxInboxes) {
      return sql.transaction(() => {
        const inboxes = sql.all(OLD_MAIL_IN_TURN, receivedBefore, maxInboxes);
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
