/**
 * How many bytes of mail a SQLite store holds, and making room: the cap of
 * stored bytes in memory mode evicts the oldest messages of the largest inbox
 * first, so whoever floods the store pays for it before anyone else.
 *
 * @packageDocumentation
 */
import { EVICTION_PASS_MAX_MESSAGES, inboxTotals, largestInbox } from '../contract/eviction.ts';
import type { CapacityStore, EvictedMessage } from '../contract/types.ts';
import type { Sql } from './database.ts';

/** The capacity queries of a SQLite store. */
export function createSqliteCapacity(sql: Sql): CapacityStore {
  return {
    async storedMessageBytes() {
      return Number(sql.get('SELECT COALESCE(SUM(size), 0) AS total FROM messages')?.total ?? 0);
    },
    async storedCounts() {
      // A phone's local part is its E.164 number (wire/phones.ts, E164_PATTERN): + and 7 to 15 digits, the first not 0.
      const row = sql.get(`SELECT COUNT(*) AS total, COALESCE(SUM(message_count), 0) AS messages,
        COUNT(*) FILTER (WHERE local_part GLOB '+[1-9]*' AND length(local_part) BETWEEN 8 AND 16 AND substr(local_part, 2) NOT GLOB '*[^0-9]*') AS phones
        FROM inboxes`);
      const phones = Number(row?.phones ?? 0);
      return { inboxes: Number(row?.total ?? 0) - phones, phones, messages: Number(row?.messages ?? 0) };
    },
    async evictFromLargestInboxes(bytesToFree) {
      return sql.transaction(() => {
        const totals = inboxTotals(sql.all('SELECT inbox_id, SUM(size) AS bytes FROM messages GROUP BY inbox_id'));
        const evicted: EvictedMessage[] = [];
        let freed = 0;
        while (freed < bytesToFree && evicted.length < EVICTION_PASS_MAX_MESSAGES) {
          const inboxId = largestInbox(totals);
          if (inboxId === null) break;
          const oldest = sql.get('SELECT id, size FROM messages WHERE inbox_id = ? ORDER BY seq LIMIT 1', inboxId);
          if (!oldest) {
            totals.delete(inboxId);
            continue;
          }
          const size = Number(oldest.size);
          sql.run('DELETE FROM messages WHERE id = ?', String(oldest.id));
          sql.run('UPDATE inboxes SET message_count = message_count - 1 WHERE id = ?', inboxId);
          totals.set(inboxId, (totals.get(inboxId) ?? 0) - size);
          evicted.push({ inboxId, messageId: String(oldest.id), size });
          freed += size;
        }
        return evicted;
      });
    },
  };
}
