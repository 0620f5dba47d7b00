/**
 * Handing out phone numbers: a phone is an inbox whose local part is its
 * E.164 number, so the store's address uniqueness makes a number unique among
 * active phones, and an expired phone's number is free again.
 *
 * @packageDocumentation
 */
import { randomInt } from 'node:crypto';
import { phoneNumberAt, phoneRangeSize } from '../../wire/phones.ts';
import type { PhoneCountry } from '../../wire/phones.ts';
import type { InboxRecord, InboxStore } from '../storage/contract/types.ts';

/** Random numbers tried before a range is called full. */
const ATTEMPTS = 24;

/** The inbox fields of a new phone, all but its local part. */
export type PhoneFields = Omit<Parameters<InboxStore['createInbox']>[0], 'localPart'>;

/**
 * Creates a phone with a free number of the country's fiction range: random
 * numbers first, then, for a small range (Australia's 30), every one in turn.
 * Resolves with null when none is free.
 */
export async function allocatePhone(create: (inbox: Parameters<InboxStore['createInbox']>[0]) => Promise<InboxRecord | 'address_taken' | 'cap_reached'>, country: PhoneCountry, fields: PhoneFields): Promise<InboxRecord | 'cap_reached' | null> {
  const size = phoneRangeSize(country);
  const tried = new Set<number>();
  const order: number[] = [];
  for (let i = 0; i < Math.min(ATTEMPTS, size) && tried.size < size; i++) {
    let index = randomInt(size);
    while (tried.has(index)) index = (index + 1) % size;
    tried.add(index);
    order.push(index);
  }
  if (size <= ATTEMPTS * 2) for (let index = 0; index < size; index++) if (!tried.has(index)) order.push(index);
  for (const index of order) {
    const created = await create({ ...fields, localPart: phoneNumberAt(country, index) });
    if (created !== 'address_taken') return created;
  }
  return null;
}
