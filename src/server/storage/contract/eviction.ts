/**
 * Choosing whom the stored-bytes cap evicts, the same for every dialect: the
 * inbox holding the most bytes at each step (ties: the smallest inbox id), its
 * totals read once per pass and kept up to date as messages go.
 *
 * @packageDocumentation
 */
import type { Row } from './rows.ts';

/**
 * Most messages one eviction pass deletes, so that one call is bounded
 * whatever it is asked to free; the caller calls again while still over.
 */
export const EVICTION_PASS_MAX_MESSAGES = 1000;

/** Bytes held per inbox, from rows of `inbox_id` and `bytes`, as a pass keeps them. */
export function inboxTotals(rows: Row[]): Map<string, number> {
  return new Map(rows.map((row) => [String(row.inbox_id), Number(row.bytes)]));
}

/** The inbox holding the most bytes (ties: the smallest id), or null when none holds any. */
export function largestInbox(totals: ReadonlyMap<string, number>): string | null {
  let best: string | null = null;
  let bestBytes = 0;
  for (const [inboxId, bytes] of totals) {
    if (bytes > bestBytes || (bytes === bestBytes && bytes > 0 && best !== null && inboxId < best)) {
      best = inboxId;
      bestBytes = bytes;
    }
  }
  return best;
}
