/**
 * What the store holds (inboxes, phones, messages) for the metrics' gauges,
 * at a bounded cost: the store is read at most once every `maxAgeMs`
 * however often Prometheus scrapes (its one pass over the inboxes is
 * `CapacityStore.storedCounts`), and a scrape waits for a read at most
 * `waitMs`, else it gets the counts read before. A read that fails keeps
 * the last counts until the next is due.
 *
 * @packageDocumentation
 */
import type { StoredCounts } from './storage/contract/types.ts';

/** How old the stored counts may be (ms): at most one read of the store per this interval per node. */
export const STORED_COUNTS_MAX_AGE_MS = 30_000;

/** How long a scrape waits for a read of the store (ms) before answering with the counts read before. */
export const STORED_COUNTS_WAIT_MS = 1_000;

/** Reads the counts through `read`, cached; resolves with null while none was ever read. */
export function cachedStoredCounts(
  read: () => Promise<StoredCounts>,
  options: { maxAgeMs?: number; waitMs?: number; now?: () => number } = {},
): () => Promise<StoredCounts | null> {
  const maxAgeMs = options.maxAgeMs ?? STORED_COUNTS_MAX_AGE_MS;
  const waitMs = options.waitMs ?? STORED_COUNTS_WAIT_MS;
  const now = options.now ?? (() => performance.now());
  let last: StoredCounts | null = null;
  let readAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<void> | null = null;
  return async () => {
    if (pending === null && now() - readAt >= maxAgeMs) {
      readAt = now();
      pending = read().then(
        (counts) => void (last = counts),
        () => undefined,
      );
      void pending.finally(() => (pending = null));
    }
    if (pending !== null) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([pending, new Promise((resolve) => (timer = setTimeout(resolve, waitMs).unref()))]);
      clearTimeout(timer);
    }
    return last;
  };
}
