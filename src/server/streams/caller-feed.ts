/**
 * The policy of `GET /me/events` (the connection itself is `connection.ts`):
 * which bus events the caller may see, and the catch-up after a bus gap.
 *
 * @packageDocumentation
 */
import { canSee, isActive, listVisibleInboxes } from '../auth/visibility.ts';
import type { Principal } from '../auth/principal.ts';
import type { ServerContext } from '../context/context.ts';
import { toWireInbox } from '../http/present.ts';
import { formatEvent } from '../http/sse.ts';
import type { InboxRecord, MessageSummaryRecord, StorePage } from '../storage/contract/types.ts';
import type { StreamPolicy } from './connection.ts';
import { createMessageFrames } from './frames.ts';
import type { MessageFrames } from './frames.ts';
import { SeqLedger } from './ledger.ts';

/** Messages read per query when catching up an inbox after a bus gap. */
const CATCH_UP_PAGE = 200;

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
    const page: StorePage<InboxRecord> = await listVisibleInboxes(ctx, principal, { cursor, limit: 100 });
    for (const inbox of page.items) found.set(inbox.id, inbox);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return found;
}


/**
 * Creates the policy of one `GET /me/events` connection. On a bus that may
 * lose events (`bus.mayResync`) it keeps, per inbox of the caller, a
 * {@link SeqLedger}, so that after a gap it can list the caller's inboxes
 * again and send what changed: new inboxes as `inbox.created`, vanished ones
 * as `inbox.deleted`/`inbox.expired`, and the messages it had not sent yet.
 * No message event is sent twice. Which inbox an event is about decides
 * whether the caller gets it, by the same rule as every other endpoint
 * (`canSee`); the answer is remembered per connection, so a deleted inbox's
 * event reaches those who could see it, and nobody else learns its id.
 * A message event's bytes come from `frames`, shared by the router's
 * connections, so that a message is serialized once for every feed.
 */
export function callerFeedPolicy(ctx: ServerContext, principal: Exclude<Principal, { kind: 'anonymous' }>, frames: MessageFrames = createMessageFrames()): StreamPolicy {
  /** Inbox id → whether this caller may see it (filled as events come). */
  const visible = new Map<string, boolean>();
  /** What was sent of each of the caller's inboxes; only on a bus that may have gaps. */
  const ledger = ctx.bus.mayResync === true ? new SeqLedger() : null;
  let write: (text: string | Uint8Array) => void = () => {};

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
    write(frames.feedFrame(inboxId, message));
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
  /** Set when a `resync` arrives, cleared by the catch-up it starts: several resyncs in a row catch up once. */
  let resyncPending = false;

  return {
    async start(connection) {
      write = (text) => connection.write(text);
      if (principal.kind === 'apiKey' || principal.kind === 'session' || ledger) {
        // The user's current inboxes, so that their deletion is reported too.
        for (const inbox of (await listVisible(ctx, principal)).values()) {
          visible.set(inbox.id, true);
          ledger?.start(inbox.id, inbox.lastSeq);
        }
      }
      connection.write(formatEvent('ready', {}));
    },
    noticed(event) {
      if (event.type === 'resync') resyncPending = true;
    },
    async handle(event) {
      if (event.type === 'resync') {
        if (!resyncPending || !ledger) return;
        resyncPending = false;
        return catchUp(ledger);
      }
      // A revocation is the connection's business, never news of an inbox.
      if (event.type === 'access.revoked') return;
      if (event.type === 'inbox.deleted' || event.type === 'inbox.expired') {
        const seen = principal.kind === 'operator' || visible.get(event.inboxId) === true;
        if (seen) sendGone(event.type, event.inboxId);
        else visible.delete(event.inboxId);
        return;
      }
      if (!(await mayLookUp(event.inboxId))) return;
      if (event.type === 'message') return sendMessage(event.inboxId, event.message);
      const inbox = await ctx.store.findInboxById(event.inboxId);
      // Not again when a catch-up already sent it.
      if (inbox && isActive(inbox, ctx.now()) && !ledger?.has(inbox.id)) sendCreated(inbox);
    },
    endData(end) {
      return end.event === 'access.revoked' ? { reason: end.reason } : { inboxId: principal.kind === 'inboxToken' ? principal.inboxId : undefined };
    },
  };
}
