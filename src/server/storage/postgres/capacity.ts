/**
 * How many bytes of mail a PostgreSQL store holds, and making room (twin of
 * `../sqlite/capacity.ts`): the oldest messages of the largest inbox go first.
 *
 * @packageDocumentation
 */
import { EVICTION_PASS_MAX_MESSAGES, inboxTotals, largestInbox } from '../contract/eviction.ts';
import type { CapacityStore, EvictedMessage } from '../contract/types.ts';
import type { PgSql } from './database.ts';

/** The capacity queries of a PostgreSQL store. */
export function createPostgresCapacity(sql: PgSql): CapacityStore {
  return {
    async storedMessageBytes() {
      return Number((await sql.get('SELECT COALESCE(SUM(size), 0)::bigint AS total FROM messages'))?.total ?? 0);
    },
    async storedCounts() {
      // A phone's local part is its E.164 number (wire/phones.ts, E164_PATTERN).
      const row = await sql.get(`SELECT COUNT(*) AS total, COALESCE(SUM(message_count), 0)::bigint AS messages,
        COUNT(*) FILTER (WHERE local_part ~ '^\\+[1-9][0-9]{6,14}$') AS phones
        FROM inboxes`);
      const phones = Number(row?.phones ?? 0);
      return { inboxes: Number(row?.total ?? 0) - phones, phones, messages: Number(row?.messages ?? 0) };
    },
    async evictFromLargestInboxes(bytesToFree) {
      return sql.transaction(async (tx) => {
        const totals = inboxTotals(await tx.all('SELECT inbox_id, SUM(size)::bigint AS bytes FROM messages GROUP BY inbox_id'));
        const evicted: EvictedMessage[] = [];
        let freed = 0;
        while (freed < bytesToFree && evicted.length < EVICTION_PASS_MAX_MESSAGES) {
          const inboxId = largestInbox(totals);
          if (inboxId === null) break;
          // The inbox row lock orders this eviction with deliveries and the per-inbox eviction.
          await tx.get('SELECT id FROM inboxes WHERE id = $1 FOR UPDATE', inboxId);
          const oldest = await tx.get('DELETE FROM messages WHERE id = (SELECT id FROM messages WHERE inbox_id = $1 ORDER BY seq LIMIT 1) RETURNING id, size', inboxId);
          if (!oldest) {
            totals.delete(inboxId);
            continue;
          }
          const size = Number(oldest.size);
          await tx.run('UPDATE inboxes SET message_count = message_count - 1 WHERE id = $1', inboxId);
          totals.set(inboxId, (totals.get(inboxId) ?? 0) - size);
          evicted.push({ inboxId, messageId: String(oldest.id), size });
          freed += size;
        }
        return evicted;
      });
    },
  };
}
