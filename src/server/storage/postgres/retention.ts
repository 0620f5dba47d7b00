/**
 * The retention aggregate on PostgreSQL: deleting mail older than the service
 * keeps it, by every node at once without two of them fighting: each inbox is
 * swept under its row lock, taken with SKIP LOCKED, so an inbox another node is
 * sweeping (or delivering to) is left for that node or the next sweep.
 *
 * @packageDocumentation
 */
import type { RetentionStore } from '../contract/types.ts';
import { SWEEP_OWNER_SQL } from '../contract/retention-types.ts';

/** The inboxes holding mail past its retention, oldest mail first and fairly between owners (see `sweepOldMessages`). */
const OLD_MAIL_IN_TURN = `SELECT inbox_id FROM (
  SELECT o.inbox_id, o.oldest, ROW_NUMBER() OVER (PARTITION BY ${SWEEP_OWNER_SQL} ORDER BY o.oldest, o.inbox_id) AS turn
  FROM (SELECT inbox_id, MIN(received_at) AS oldest FROM messages WHERE received_at < $1 GROUP BY inbox_id) o
  JOIN inboxes ON inboxes.id = o.inbox_id
) turns ORDER BY turn, oldest, inbox_id LIMIT $2`;
import type { PgSql } from './database.ts';

/** The retention queries of a PostgreSQL store. */
export function createPostgresRetention(sql: PgSql): RetentionStore {
  return {
    async sweepOldMessages(receivedBefore, maxInboxes) {
      const inboxes = await sql.all(OLD_MAIL_IN_TURN, receivedBefore, maxInboxes);
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
