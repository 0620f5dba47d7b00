/**
 * The texts a node's Twilio emulation took, as `messages(sid).fetch()` and
 * `messages.list()` read them back: each Message resource and its status as
 * it moves (`queued`, then `delivered` or `undelivered` once the intake has
 * settled it). Bounded per node and per owner (the oldest go first), and
 * kept by the node that took the text: an owner reads only its own.
 *
 * @packageDocumentation
 */
import type { TwilioMessageFields } from './twilio.ts';

/** The ledger's bounds. */
export interface TwilioLedgerBounds {
  /** Texts the node keeps in all; past it the oldest go. */
  total: number;
  /** Texts one owner keeps; past it that owner's oldest go. */
  perOwner: number;
}

/** What `messages.list()` may filter on (Twilio's `To`, `From`, `DateSent`, `DateSent<`, `DateSent>`). */
export interface TwilioListFilter {
  to?: string;
  from?: string;
  /** Sent on this UTC day (`YYYY-MM-DD`). */
  sentOn?: string;
  /** Sent at or before, epoch ms. */
  sentBefore?: number;
  /** Sent at or after, epoch ms. */
  sentAfter?: number;
}

/** The node's Twilio ledger. */
export interface TwilioLedger {
  /** Keeps a text the owner sent. */
  record(owner: string, message: TwilioMessageFields): void;
  /** Changes what a kept text says (its status, its error); nothing when it is gone. */
  update(owner: string, sid: string, change: Partial<TwilioMessageFields>): void;
  /** One of the owner's texts, or null. */
  find(owner: string, sid: string): TwilioMessageFields | null;
  /** The owner's texts that pass the filter, newest first. */
  list(owner: string, filter: TwilioListFilter): TwilioMessageFields[];
}

/** Default bounds: 10,000 texts a node, 1,000 an owner. */
export const TWILIO_LEDGER_BOUNDS: TwilioLedgerBounds = { total: 10_000, perOwner: 1_000 };

function passes(m: TwilioMessageFields, f: TwilioListFilter): boolean {
  if (f.to !== undefined && m.to !== f.to) return false;
  if (f.from !== undefined && m.from !== f.from && m.messagingServiceSid !== f.from) return false;
  if (f.sentOn !== undefined && new Date(m.createdAt).toISOString().slice(0, 10) !== f.sentOn) return false;
  if (f.sentBefore !== undefined && m.createdAt > f.sentBefore) return false;
  if (f.sentAfter !== undefined && m.createdAt < f.sentAfter) return false;
  return true;
}

/** Makes a node's ledger. */
export function createTwilioLedger(bounds: TwilioLedgerBounds = TWILIO_LEDGER_BOUNDS): TwilioLedger {
  const owners = new Map<string, Map<string, TwilioMessageFields>>();
  /** Every kept text in the order it came: key → owner. */
  const order = new Map<string, { owner: string; sid: string }>();
  const keyOf = (owner: string, sid: string) => `${owner}\u0000${sid}`;
  const drop = (owner: string, sid: string) => {
    owners.get(owner)?.delete(sid);
    if (owners.get(owner)?.size === 0) owners.delete(owner);
    order.delete(keyOf(owner, sid));
  };
  return {
    record(owner, message) {
      const own = owners.get(owner) ?? new Map<string, TwilioMessageFields>();
      owners.set(owner, own);
      if (own.size >= bounds.perOwner) {
        const oldest = own.keys().next().value;
        if (oldest !== undefined) drop(owner, oldest);
      }
      if (order.size >= bounds.total) {
        const oldest = order.values().next().value;
        if (oldest) drop(oldest.owner, oldest.sid);
      }
      owners.set(owner, own);
      own.set(message.sid, { ...message });
      order.set(keyOf(owner, message.sid), { owner, sid: message.sid });
    },
    update(owner, sid, change) {
      const own = owners.get(owner);
      const current = own?.get(sid);
      if (own && current) own.set(sid, { ...current, ...change });
    },
    find(owner, sid) {
      return owners.get(owner)?.get(sid) ?? null;
    },
    list(owner, filter) {
      return [...(owners.get(owner)?.values() ?? [])].reverse().filter((m) => passes(m, filter));
    },
  };
}
