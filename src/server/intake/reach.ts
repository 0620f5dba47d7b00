/**
 * Which inbox a recipient names, and whether the sender may reach it. A
 * phone receives only from the SMS channels (an SMTP client cannot find or
 * fill another's phone: its number answers as a free address does); an
 * email inbox only from the email channels. A recipient the sender may not
 * reach looks exactly like one that does not exist.
 *
 * @packageDocumentation
 */
import { isPhoneLocalPart } from '../../wire/phones.ts';
import type { InboxRecord, Store } from '../storage/contract/types.ts';
import type { ChannelKind, Reach } from './types.ts';

/** Splits `local@domain` at its last `@`; null when there is none. */
function splitAddress(address: string): { localPart: string; domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return { localPart: address.slice(0, at), domain: address.slice(at + 1) };
}

/** The phone an SMS to `number` reaches (on the default domain first), or null when no active phone has it. */
export async function findPhone(store: Pick<Store, 'listDomains' | 'findActiveInboxByAddress'>, number: string, now: number): Promise<InboxRecord | null> {
  if (!isPhoneLocalPart(number)) return null;
  const domains = await store.listDomains();
  for (const domain of [...domains].sort((a, b) => Number(b.isDefault) - Number(a.isDefault))) {
    const inbox = await store.findActiveInboxByAddress(number, domain.domain, now);
    if (inbox) return inbox;
  }
  return null;
}

/** The active email inbox of an address (never a phone), matched in any case, or null. */
async function findEmailInbox(store: Pick<Store, 'findActiveInboxByAddress'>, address: string, now: number): Promise<InboxRecord | null> {
  const parts = splitAddress(address);
  if (!parts || isPhoneLocalPart(parts.localPart)) return null;
  // The store matches the local part and the domain in any case: addresses are unique regardless of case,
  // and many applications lower-case the addresses users type.
  return store.findActiveInboxByAddress(parts.localPart, parts.domain, now);
}

/** Whether `reach` allows `inbox`. */
export function mayReach(reach: Reach, inbox: InboxRecord): boolean {
  switch (reach.kind) {
    case 'any':
      return true;
    case 'inbox':
      return inbox.id === reach.inboxId;
    default:
      return inbox.ownerUserId === reach.userId;
  }
}

/** The inbox a recipient of a `kind` channel names and the sender may reach, or null. */
export async function reachRecipient(store: Pick<Store, 'listDomains' | 'findActiveInboxByAddress'>, kind: ChannelKind, reach: Reach, recipient: string, now: number): Promise<InboxRecord | null> {
  const inbox = kind === 'sms' ? await findPhone(store, recipient, now) : await findEmailInbox(store, recipient, now);
  return inbox && mayReach(reach, inbox) ? inbox : null;
}
