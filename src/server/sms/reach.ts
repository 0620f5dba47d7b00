/**
 * Which phones a provider request may text: on a loopback service anyone may
 * text any active phone (what the SDK sends is accepted, as the SMTP intake
 * accepts any sender); on a shared service the request must carry an API key
 * (where the provider's secret goes) and reaches that user's phones only.
 *
 * @packageDocumentation
 */
import { isLoopbackHost } from '../../wire/defaults.ts';
import type { InboxRecord, Store } from '../storage/contract/types.ts';
import { findPhone } from './deliver.ts';

/** Who sent a provider request (the shape of the server's principal). */
export type SmsCaller =
  | { kind: 'anonymous' }
  | { kind: 'inboxToken'; inboxId: string }
  | { kind: 'apiKey' | 'session'; user: { id: string } }
  | { kind: 'operator' };

/** Whom a stored SMS row (a Verify service) is charged to: the user, the inbox, the operator, or every anonymous loopback caller together. */
export function callerKey(caller: SmsCaller): string {
  switch (caller.kind) {
    case 'anonymous':
    case 'operator':
      return caller.kind;
    case 'inboxToken':
      return `inbox:${caller.inboxId}`;
    default:
      return `user:${caller.user.id}`;
  }
}

/** Whether the caller may use the provider APIs at all on this service. */
export function mayUseIntake(caller: SmsCaller, serviceHost: string): boolean {
  return caller.kind !== 'anonymous' || isLoopbackHost(serviceHost);
}

/** The active phone of `number` the caller may text, or null (an unknown number and another's phone look alike). */
export async function reachablePhone(store: Store, caller: SmsCaller, number: string, now: number): Promise<InboxRecord | null> {
  const phone = await findPhone(store, number, now);
  if (!phone) return null;
  switch (caller.kind) {
    case 'anonymous':
    case 'operator':
      return phone;
    case 'inboxToken':
      return phone.id === caller.inboxId ? phone : null;
    default:
      return phone.ownerUserId === caller.user.id ? phone : null;
  }
}
