/**
 * The one record of which message events a connection has sent, shared by
 * both streams: the inbox stream keeps one inbox in it, `GET /me/events` one
 * per inbox of the caller.
 *
 * @packageDocumentation
 */

/** Seqs above an inbox's base that one connection sent, at most; past it, the base moves up. */
const MAX_SENT_ABOVE_BASE = 1000;

interface Entry {
  base: number;
  above: Set<number>;
}

/**
 * Which message events of each inbox one connection has sent. Per inbox: a
 * base (every seq up to it was sent, or needs no event: it was there before
 * the connection, or is gone) and the seqs sent above it (events of several
 * nodes can arrive out of seq order). {@link SeqLedger.take} refuses a seq
 * already sent, so no message event is sent twice.
 */
export class SeqLedger {
  readonly #inboxes = new Map<string, Entry>();

  /** Starts tracking an inbox whose messages up to `base` need no event. */
  start(inboxId: string, base: number): void {
    this.#inboxes.set(inboxId, { base, above: new Set() });
  }

  /** Whether the inbox is tracked. */
  has(inboxId: string): boolean {
    return this.#inboxes.has(inboxId);
  }

  /** The tracked inboxes (a copy: forgetting while iterating is safe). */
  inboxes(): string[] {
    return [...this.#inboxes.keys()];
  }

  /** The base of an inbox (every seq up to it is sent or needs none), or null when it is not tracked. */
  base(inboxId: string): number | null {
    return this.#inboxes.get(inboxId)?.base ?? null;
  }

  /** Stops tracking an inbox (it is gone). */
  forget(inboxId: string): void {
    this.#inboxes.delete(inboxId);
  }

  /** Whether `seq` of a tracked inbox was sent already (or needs no event). */
  sent(inboxId: string, seq: number): boolean {
    const entry = this.#inboxes.get(inboxId);
    return entry !== undefined && (seq <= entry.base || entry.above.has(seq));
  }

  /**
   * Records a message as sent; false when it was sent already. An inbox not
   * tracked yet stays untracked (the caller feed's `inbox.created` counts
   * its messages when it comes).
   */
  take(inboxId: string, seq: number): boolean {
    const entry = this.#inboxes.get(inboxId);
    if (!entry) return true;
    if (seq <= entry.base || entry.above.has(seq)) return false;
    entry.above.add(seq);
    advance(entry);
    if (entry.above.size > MAX_SENT_ABOVE_BASE) {
      // Holes this old are messages deleted before their event was read.
      entry.base = Math.max(...entry.above);
      entry.above.clear();
    }
    return true;
  }

  /** Everything of the inbox up to `seq` is sent or gone (after a catch-up or a replay read from the store). */
  settle(inboxId: string, seq: number): void {
    const entry = this.#inboxes.get(inboxId);
    if (!entry) return;
    entry.base = Math.max(entry.base, seq);
    for (const above of entry.above) if (above <= entry.base) entry.above.delete(above);
    advance(entry);
  }
}

function advance(entry: Entry): void {
  while (entry.above.delete(entry.base + 1)) entry.base += 1;
}
