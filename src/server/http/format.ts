/**
 * Storage records to wire shapes (times as ISO 8601 strings in UTC).
 *
 * @packageDocumentation
 */
import type { Domain, Inbox } from '../../wire/schemas.ts';
import type { DomainRecord, InboxRecord } from '../storage/types.ts';

/** Epoch milliseconds as an ISO 8601 UTC timestamp. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A domain as sent. */
export function toWireDomain(d: DomainRecord): Domain {
  return { id: d.id, domain: d.domain, isDefault: d.isDefault };
}

/** An inbox as sent (never with its token). */
export function toWireInbox(i: InboxRecord): Inbox {
  return {
    id: i.id,
    address: `${i.localPart}@${i.domain}`,
    localPart: i.localPart,
    domainId: i.domainId,
    domain: i.domain,
    label: i.label,
    forwardTo: i.forwardTo,
    createdAt: iso(i.createdAt),
    expiresAt: i.expiresAt === null ? null : iso(i.expiresAt),
    messageCount: i.messageCount,
  };
}
