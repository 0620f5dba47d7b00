/**
 * An inbox as a mailbox: its messages in seq order (the seq is the IMAP UID
 * and, with the message id, the POP3 unique id), their sizes, arrival times
 * and flags, loaded from the store; UIDVALIDITY from the inbox's creation,
 * so it is the same on every node and after every restart, and changes only
 * when an address is given to a new inbox; and the raw source of a message
 * with its MIME structure, cached for the few messages a session is reading.
 *
 * @packageDocumentation
 */
import type { InboxRecord, MessageSummaryRecord, Store } from '../../storage/contract/types.ts';
import { parseMime } from './mime.ts';
import type { MimePart } from './mime.ts';

/** One message of a mailbox as a session sees it. */
export interface MailEntry {
  /** The message's seq in its inbox: its IMAP UID. */
  uid: number;
  /** The message's id. */
  id: string;
  /** Its raw size, in bytes. */
  size: number;
  /** When it arrived, epoch milliseconds. */
  receivedAt: number;
  /** Its flags (`\Seen` is stored, the others live in the session). */
  flags: Set<string>;
}

/** Messages listed per store read. */
const PAGE = 500;

/** The entry of a stored message. */
export function entryOf(summary: Pick<MessageSummaryRecord, 'seq' | 'id' | 'size' | 'receivedAt'>, seen: boolean): MailEntry {
  return { uid: summary.seq, id: summary.id, size: summary.size, receivedAt: summary.receivedAt, flags: new Set(seen ? ['\\Seen'] : []) };
}

/** The messages of an inbox after `afterUid`, oldest first, at most `max`, with their stored \Seen flag. */
export async function loadEntries(store: Pick<Store, 'listMessagesAfterSeq' | 'listSeenMessageIds'>, inboxId: string, max: number, afterUid = 0): Promise<MailEntry[]> {
  const summaries: MessageSummaryRecord[] = [];
  for (let after = afterUid; summaries.length < max; ) {
    const page = await store.listMessagesAfterSeq(inboxId, after, Math.min(PAGE, max - summaries.length));
    summaries.push(...page);
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.seq;
  }
  const seen = new Set(await store.listSeenMessageIds(inboxId, max));
  return summaries.map((summary) => entryOf(summary, seen.has(summary.id)));
}

/** The ids of an inbox's messages marked seen, for a session refreshing its flags. */
export async function seenIds(store: Pick<Store, 'listSeenMessageIds'>, inboxId: string, max: number): Promise<Set<string>> {
  return new Set(await store.listSeenMessageIds(inboxId, max));
}

/** UIDVALIDITY of an inbox: the second it was created (a positive 32-bit number). */
export function uidValidityOf(inbox: Pick<InboxRecord, 'createdAt'>): number {
  return (Math.floor(inbox.createdAt / 1000) % 0xffffffff) + 1;
}

/** The address of an inbox. */
export function addressOf(inbox: Pick<InboxRecord, 'localPart' | 'domain'>): string {
  return `${inbox.localPart}@${inbox.domain}`;
}

/** A message's raw source with its MIME structure. */
export interface LoadedMessage {
  raw: Buffer;
  mime: MimePart;
}

/** Messages a session keeps read (its last few), so a FETCH of several items reads each message once. */
const CACHED_MESSAGES = 4;

/** The raw source of a session's messages, the last few cached; null for a message deleted meanwhile. */
export function createMessageReader(store: Pick<Store, 'findRaw'>): (id: string) => Promise<LoadedMessage | null> {
  const cache = new Map<string, LoadedMessage>();
  return async (id) => {
    const hit = cache.get(id);
    if (hit) return hit;
    const raw = await store.findRaw(id);
    if (!raw) return null;
    const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    const loaded = { raw: buffer, mime: parseMime(buffer) };
    cache.set(id, loaded);
    if (cache.size > CACHED_MESSAGES) cache.delete(cache.keys().next().value as string);
    return loaded;
  };
}
