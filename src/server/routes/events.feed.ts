/**
 * What `GET /me/events` sends one caller (`events.handlers.ts` owns the
 * connection): which bus events the caller may see, and the catch-up after a
 * bus gap.
 *
 * @packageDocumentation
 */
import { canSee, isActive } from '../auth/visibility.ts';
import type { Principal } from '../auth/principal.ts';
import type { ServerContext } from '../context/context.ts';
import type { BusEvent } from '../events/types.ts';
import { toMessageSummary, toWireInbox } from '../http/present.ts';
import { formatEvent } from '../http/sse.ts';
import type { InboxRecord, MessageSummaryRecord, StorePage } from '../storage/types.ts';

/** Messages read per query when catching up an inbox after a bus gap. */
const CATCH_UP_PAGE = 200;

/** Seqs above an inbox's base that one connection sent, at most; past it, the base moves up. */
const MAX_SENT_ABOVE_BASE = 1000;

/**
 * Which message events of each inbox one connection has sent, so that a
 * catch-up after a bus gap sends exactly the missing ones. Per inbox: a base
 * (every seq up to it was sent, or is gone) and the seqs sent above it (events
 * of several nodes can arrive out of seq order). Live events that a catch-up
 * already sent are refused by {@link SeqLedger.take}.
 */
class SeqLedger {
  readonly #inboxes = new Map<string, { base: number; above: Set<number> }>();

  /** Starts tracking an inbox whose messages up to `lastSeq` need no event. */
  start(inboxId: string, lastSeq: number): void {
    this.#inboxes.set(inboxId, { base: lastSeq, above: new Set() });
  }

  has(inboxId: string): boolean {
    return this.#inboxes.has(inboxId);
  }

  /** The tracked inboxes (a copy: forgetting while iterating is safe). */
  inboxes(): string[] {
    return [...this.#inboxes.keys()];
  }

  /** The base of an inbox, or null when it is not tracked. */
  base(inboxId: string): number | null {
    return this.#inboxes.get(inboxId)?.base ?? null;
  }

  forget(inboxId: string): void {
    this.#inboxes.delete(inboxId);
  }

  /**
   * Records a message as sent; false when it was sent already. An inbox not
   * tracked yet (its `inbox.created` has not come) stays untracked: its
   * `inbox.created` counts the message.
   */
  take(inboxId: string, seq: number): boolean {
    const entry = this.#inboxes.get(inboxId);
    if (!entry) return true;
    if (seq <= entry.base || entry.above.has(seq)) return false;
    entry.above.add(seq);
    this.#advance(entry);
    if (entry.above.size > MAX_SENT_ABOVE_BASE) {
      // Holes this old are messages deleted before their event was read.
      entry.base = Math.max(...entry.above);
      entry.above.clear();
    }
    return true;
  }

  /** After a catch-up to `lastSeq`: everything up to it is sent or gone. */
  settle(inboxId: string, lastSeq: number): void {
    const entry = this.#inboxes.get(inboxId);
    if (!entry) return;
    entry.base = Math.max(entry.base, lastSeq);
    for (const seq of entry.above) if (seq <= entry.base) entry.above.delete(seq);
    this.#advance(entry);
  }

  #advance(entry: { base: number; above: Set<number> }): void {
    while (entry.above.delete(entry.base + 1)) entry.base += 1;
  }
}

/** Every active inbox a principal can see, from the store (the view after a bus gap). */
async function listVisible(ctx: ServerContext, principal: Exclude<Principal, { kind: 'anonymous' }>): Promise<Map<string, InboxRecord>> {
  const now = ctx.now();
  const found = new Map<string, InboxRecord>();
  if (principal.kind === 'inboxToken') {
    const inbox = await ctx.store.findInboxById(principal.inboxId);
    if (inbox && isActive(inbox, now)) found.set(inbox.id, inbox);
    return found;
  }
  let cursor: string | null = null;
  do {
    const page: StorePage<InboxRecord> =
      principal.kind === 'operator'
        ? await ctx.store.listActiveInboxes({ cursor, limit: 100, now })
        : await ctx.store.listInboxesByOwner(principal.user.id, { cursor, limit: 100, now });
    for (const inbox of page.items) found.set(inbox.id, inbox);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return found;
}

/** One connection's view of the caller's inboxes; {@link createCallerFeed} makes it. */
export interface CallerFeed {
  /** Sends what the caller may see of one bus event (call in order, one at a time). */
  handle(event: BusEvent): Promise<void>;
  /** Marks a catch-up as due; the next `resync` handled runs it (several in a row run it once). */
  noteResync(): void;
}

/**
 * Creates the feed of one `GET /me/events` connection, writing SSE text
 * through `write`. On a bus that may lose events (`bus.mayResync`) it keeps,
 * per inbox of the caller, the highest seq sent, so that after a gap it can
 * list the caller's inboxes again and send what changed: new inboxes as
 * `inbox.created`, vanished ones as `inbox.deleted`/`inbox.expired`, and the
 * messages it had not sent yet. No message event is sent twice.
 */
export async function createCallerFeed(
  ctx: ServerContext,
  principal: Exclude<Principal, { kind: 'anonymous' }>,
  write: (text: string) => void,
): Promise<CallerFeed> {
  /** Inbox id → whether this caller may see it (filled as events come). */
  const visible = new Map<string, boolean>();
  /** What was sent of each of the caller's inboxes; only on a bus that may have gaps. */
  const ledger = ctx.bus.mayResync === true ? new SeqLedger() : null;
  if (principal.kind === 'apiKey' || principal.kind === 'session' || ledger) {
    // The user's current inboxes, so that their deletion is reported too.
    for (const inbox of (await listVisible(ctx, principal)).values()) {
      visible.set(inbox.id, true);
      ledger?.start(inbox.id, inbox.lastSeq);
    }
  }
  const mayLookUp = async (inboxId: string): Promise<boolean> => {
    if (principal.kind === 'operator') return true;
    if (principal.kind === 'inboxToken') return inboxId === principal.inboxId;
    const cached = visible.get(inboxId);
    if (cached !== undefined) return cached;
    const inbox = await ctx.store.findInboxById(inboxId);
    const seen = inbox !== null && canSee(principal, inbox);
    visible.set(inboxId, seen);
    return seen;
  };
  const sendMessage = (inboxId: string, message: MessageSummaryRecord) => {
    if (ledger && !ledger.take(inboxId, message.seq)) return;
    write(formatEvent('message', { inboxId, message: toMessageSummary(message) }));
  };
  const sendCreated = (inbox: InboxRecord) => {
    visible.set(inbox.id, true);
    // Its messageCount counts the messages so far: their events would count them twice.
    ledger?.start(inbox.id, inbox.lastSeq);
    write(formatEvent('inbox.created', toWireInbox(inbox)));
  };
  const sendGone = (type: 'inbox.deleted' | 'inbox.expired', inboxId: string) => {
    visible.delete(inboxId);
    ledger?.forget(inboxId);
    write(formatEvent(type, { inboxId }));
  };
  /** After a bus gap: list the caller's inboxes again and send what changed. */
  const catchUp = async (tracked: SeqLedger): Promise<void> => {
    const current = await listVisible(ctx, principal);
    for (const inboxId of tracked.inboxes()) {
      if (current.has(inboxId)) continue;
      sendGone((await ctx.store.findInboxById(inboxId)) ? 'inbox.expired' : 'inbox.deleted', inboxId);
    }
    for (const inbox of current.values()) {
      const base = tracked.base(inbox.id);
      if (base === null) {
        sendCreated(inbox);
        continue;
      }
      for (let after = base; after < inbox.lastSeq; ) {
        const page = await ctx.store.listMessagesAfterSeq(inbox.id, after, CATCH_UP_PAGE);
        for (const message of page) sendMessage(inbox.id, message);
        if (page.length < CATCH_UP_PAGE) break;
        after = page.at(-1)!.seq;
      }
      // Whatever is still missing up to here was deleted meanwhile.
      tracked.settle(inbox.id, inbox.lastSeq);
    }
  };
  /** Set by a `resync`, cleared by the catch-up it starts: several resyncs in a row catch up once. */
  let resyncPending = false;
  const handle = async (event: BusEvent): Promise<void> => {
    if (event.type === 'resync') {
      if (!resyncPending || !ledger) return;
      resyncPending = false;
      await catchUp(ledger);
      return;
    }
    // A revocation is the caller's own stream's business (events.handlers.ts), never news of an inbox.
    if (event.type === 'access.revoked') return;
    if (event.type === 'inbox.deleted' || event.type === 'inbox.expired') {
      const seen = principal.kind === 'operator' || (principal.kind === 'inboxToken' ? event.inboxId === principal.inboxId : visible.get(event.inboxId) === true);
      if (seen) sendGone(event.type, event.inboxId);
      else visible.delete(event.inboxId);
      return;
    }
    if (!(await mayLookUp(event.inboxId))) return;
    if (event.type === 'message') {
      sendMessage(event.inboxId, event.message);
      return;
    }
    const inbox = await ctx.store.findInboxById(event.inboxId);
    // Not again when a catch-up already sent it.
    if (inbox && isActive(inbox, ctx.now()) && !ledger?.has(inbox.id)) sendCreated(inbox);
  };
  return {
    handle,
    noteResync() {
      resyncPending = true;
    },
  };
}
