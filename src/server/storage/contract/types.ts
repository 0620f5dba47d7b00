/**
 * The storage interface of the local service. Async methods and plain records
 * only, so that a PostgreSQL backend can implement it as well as SQLite.
 * Records use epoch milliseconds for times; the HTTP layer formats them.
 */
import type { RetentionStore } from './retention-types.ts';
import type { CapacityStore } from './capacity-types.ts';
import type { SmsVerificationStore } from './sms-verification-types.ts';
import type { EmailTemplateStore, IdempotencyKeyStore } from './provider-state-types.ts';

export type { SmsVerificationChange, SmsVerificationKey, SmsVerificationRow, SmsVerificationStore, SmsVerifyServiceRow } from './sms-verification-types.ts';
export type { EmailTemplateKey, EmailTemplateRow, EmailTemplateStore, IdempotencyBounds, IdempotencyClaim, IdempotencyKeyRef, IdempotencyKeyStore } from './provider-state-types.ts';
export type { RetentionStore } from './retention-types.ts';
export type { CapacityStore, EvictedMessage, StoredCounts } from './capacity-types.ts';

/** A configured mail domain. */
export interface DomainRecord {
  id: string;
  domain: string;
  isDefault: boolean;
}

/** A user (owner of API keys and sessions). */
export interface UserRecord {
  id: string;
  email: string;
  planId: string;
  createdAt: number;
}

/** A stored inbox. `ownerUserId` is null for guest inboxes (reachable by their inbox token only). */
export interface InboxRecord {
  id: string;
  localPart: string;
  domainId: string;
  domain: string;
  ownerUserId: string | null;
  label: string | null;
  forwardTo: string | null;
  createdAt: number;
  expiresAt: number | null;
  /** Hash of the inbox token. */
  tokenHash: string;
  messageCount: number;
  /** Highest seq ever assigned in this inbox (0 when none). */
  lastSeq: number;
}

/** A mailbox as stored. */
export interface AddressRecord {
  address: string;
  name: string;
}

/** Attachment metadata as stored (bytes fetched separately). */
export interface AttachmentRecord {
  id: string;
  messageId: string;
  filename: string;
  contentType: string;
  size: number;
  contentId: string | null;
  inline: boolean;
}

/** A stored message without its bodies. */
export interface MessageSummaryRecord {
  id: string;
  inboxId: string;
  seq: number;
  from: AddressRecord | null;
  to: AddressRecord[];
  cc: AddressRecord[];
  subject: string;
  preview: string;
  receivedAt: number;
  size: number;
  hasAttachments: boolean;
  /** Whether it was read (IMAP's \Seen); absent on a copy just stored (not read yet). */
  seen?: boolean;
}

/**
 * The SMTP envelope of one stored copy of a message, as the intake saw it.
 * `rcptTo` holds only the recipients routed to this copy's inbox, so one
 * inbox never learns another's (Bcc) recipients.
 */
export interface MessageEnvelope {
  /** `MAIL FROM` address, '' for the null sender (`<>`). */
  mailFrom: string;
  /** The `RCPT TO` addresses delivered to this copy's inbox. */
  rcptTo: string[];
  /** The SMTP client's IP address, or null when unknown. */
  clientAddress: string | null;
  /** The name the client gave in `HELO`/`EHLO`, or null when it gave none. */
  helo: string | null;
}

/** A stored message with bodies and attachment metadata. */
export interface MessageRecord extends MessageSummaryRecord {
  replyTo: AddressRecord[];
  headers: Record<string, string>;
  text: string | null;
  /** The HTML body as received (unsanitized). */
  rawHtml: string | null;
  /** The sanitized HTML (`cid:` images resolved), computed at intake; `null` exactly when there is no HTML body. */
  sanitizedHtml: string | null;
  attachments: AttachmentRecord[];
  /** The SMTP envelope recorded at intake; null for messages stored without one (before migration 004, or not over SMTP). */
  envelope?: MessageEnvelope | null;
}

/** A message as read from its MIME source, before its HTML body is sanitized. */
export interface ParsedMessage {
  raw: Uint8Array;
  from: AddressRecord | null;
  to: AddressRecord[];
  cc: AddressRecord[];
  replyTo: AddressRecord[];
  subject: string;
  headers: Record<string, string>;
  text: string | null;
  rawHtml: string | null;
  /** Envelope sender (MAIL FROM), '' for the null sender. */
  envelopeFrom: string;
  attachments: Array<{
    filename: string;
    contentType: string;
    contentId: string | null;
    inline: boolean;
    content: Uint8Array;
  }>;
}

/**
 * A message ready to be stored, for one or more inboxes: parsed, and its HTML
 * sanitized. Stored as it is: no reader computes or writes anything later.
 */
export interface NewMessage extends ParsedMessage {
  /** The sanitized HTML body, `cid:` images resolved; `null` when there is no HTML body. */
  sanitizedHtml: string | null;
}

/** A page of records and the cursor of the next page. */
export interface StorePage<T> {
  items: T[];
  nextCursor: string | null;
}

/** The domains aggregate of a {@link Store}. */
export interface DomainStore {
  /** Makes the configured domains exist (idempotent); the first is the default. */
  syncDomains(domains: string[]): Promise<DomainRecord[]>;
  listDomains(): Promise<DomainRecord[]>;
  findDomainById(id: string): Promise<DomainRecord | null>;
  findDomainByName(domain: string): Promise<DomainRecord | null>;
}

/**
 * An API key's own caps; each one present replaces the service's default for
 * requests made with the key (and the sessions issued under it), on every node.
 */
export interface ApiKeyCaps {
  /** Active inboxes (phones included) of the key's user, per service. */
  maxInboxes?: number;
  /** Requests per minute with the key, per service (windows counted in the database). */
  requestsPerMinute?: number;
  /** Open event streams with the key, per node. */
  maxStreams?: number;
}

/** An API key as stored: never the key itself, only its hash. */
export interface ApiKeyRecord {
  /** `key_` and the first digits of its hash (./api-key-rows.ts): how an operator names it. */
  id: string;
  keyHash: string;
  userId: string;
  userEmail: string;
  label: string | null;
  caps: ApiKeyCaps;
  /** Whether it comes from the server's configuration (flag or environment). */
  configured: boolean;
  createdAt: number;
  /** When a request last used it (written at most once a minute), or null. */
  lastUsedAt: number | null;
  /** When it was revoked, or null while it works. */
  revokedAt: number | null;
}

/** The credentials aggregate of a {@link Store}: users and their secrets (all stored as hashes; callers hash). */
export interface CredentialStore {
  createUser(user: { email: string; planId: string }): Promise<UserRecord>;
  findUserById(id: string): Promise<UserRecord | null>;
  findUserByEmail(email: string): Promise<UserRecord | null>;
  /**
   * Stores a hashed API key for a user. `configured` marks a key that comes from the
   * server's configuration (flag or environment) rather than `inboxkit keys create`.
   */
  addApiKey(userId: string, keyHash: string, options?: { configured?: boolean; label?: string | null; caps?: ApiKeyCaps }): Promise<void>;
  /** Deletes the configured API keys whose hash is not in the list, revoking their sessions; returns how many keys went. */
  removeConfiguredApiKeysExcept(keyHashes: string[]): Promise<number>;
  /**
   * Revokes an API key (kept, with the time, for {@link CredentialStore.listApiKeys})
   * and every session issued under it (through a connect code the key asked
   * for), in one transaction; returns the user it belonged to, or null when no
   * such key works.
   */
  revokeApiKey(keyHash: string): Promise<{ userId: string } | null>;
  /** The user owning an API key hash that was not revoked, or null. */
  findUserByApiKeyHash(keyHash: string): Promise<UserRecord | null>;
  /** An API key that was not revoked, with its user, or null. */
  findApiKey(keyHash: string): Promise<{ key: ApiKeyRecord; user: UserRecord } | null>;
  /** Every API key, revoked ones included, oldest first. */
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Records that a request used the key at `now`. */
  touchApiKey(keyHash: string, now: number): Promise<void>;
  /**
   * Stores a session for a user; `codeHash` links it to the connect code that
   * issued it, `parentKeyHash` to the API key that asked for that code (the
   * session is revoked with the key).
   */
  addSession(session: { tokenHash: string; userId: string; expiresAt: number; codeHash: string | null; parentKeyHash?: string | null }): Promise<void>;
  /** A session; `parentKeyHash` is the API key it was issued under (through a connect code), or null. */
  findSession(tokenHash: string): Promise<{ userId: string; expiresAt: number; revoked: boolean; parentKeyHash: string | null } | null>;
  revokeSession(tokenHash: string): Promise<boolean>;
  /** Revokes every session issued by a connect code (on code replay). */
  revokeSessionsByCode(codeHash: string): Promise<number>;
  /** Stores a connect code; `keyHash` is the API key that asked for it (its sessions end with the key). */
  addConnectCode(code: { codeHash: string; userId: string; challenge: string; redirectUri: string; expiresAt: number; keyHash?: string | null }): Promise<void>;
  /** Marks a connect code used and returns it as it was before (null if unknown). Atomic. */
  spendConnectCode(codeHash: string): Promise<{ userId: string; challenge: string; redirectUri: string; expiresAt: number; used: boolean; keyHash: string | null } | null>;
}

export type { InboxCap } from './inbox-cap.ts';
import type { InboxCap } from './inbox-cap.ts';

/** The inboxes aggregate of a {@link Store}. */
export interface InboxStore {
  /**
   * Creates an inbox; `'address_taken'` when an active inbox has the address
   * (local part compared case-insensitively). An expired inbox with the address is deleted first.
   */
  createInbox(inbox: {
    localPart: string;
    domainId: string;
    ownerUserId: string | null;
    label: string | null;
    tokenHash: string;
    createdAt: number;
    expiresAt: number | null;
    /** The client address that asked for it (counted by the guest-inbox cap). */
    creatorAddress?: string | null;
  }): Promise<InboxRecord | 'address_taken'>;
  /**
   * Creates an inbox as {@link InboxStore.createInbox} does, within a cap
   * counted in the transaction that inserts it, so that concurrent creates, on
   * any node of one database, never pass it: `guestsOfAddress` counts the
   * active guest inboxes made from `creatorAddress`, `ownedBy` the active
   * inboxes of `ownerUserId`. Over it, nothing is written and the answer is `'cap_reached'`.
   */
  createInboxWithinCap(inbox: Parameters<InboxStore['createInbox']>[0], cap: InboxCap): Promise<InboxRecord | 'address_taken' | 'cap_reached'>;
  findInboxById(id: string): Promise<InboxRecord | null>;
  /** The inbox whose token has this hash (expired or not), or null. */
  findInboxByTokenHash(tokenHash: string): Promise<InboxRecord | null>;
  /**
   * The active inbox for an address, the domain and the local part both compared
   * case-insensitively, as addresses are unique (so mail to `alice.smith@` reaches
   * the inbox created as `Alice.Smith@`: applications and libraries that
   * lower-case addresses, such as Auth.js, still reach it).
   */
  findActiveInboxByAddress(localPart: string, domain: string, now: number): Promise<InboxRecord | null>;
  /** A user's active inboxes, newest first. */
  listInboxesByOwner(userId: string, page: { cursor: string | null; limit: number; now: number }): Promise<StorePage<InboxRecord>>;
  /** Every active inbox, whoever owns it, newest first (the operator's view). */
  listActiveInboxes(page: { cursor: string | null; limit: number; now: number }): Promise<StorePage<InboxRecord>>;
  countActiveInboxesByOwner(userId: string, now: number): Promise<number>;
  /** Active inboxes without an owner (guest inboxes) created from a client address. */
  countActiveGuestInboxesByAddress(address: string, now: number): Promise<number>;
  updateInbox(id: string, patch: { label?: string | null; forwardTo?: string | null }): Promise<InboxRecord | null>;
  /** Deletes an inbox with its messages; returns how many messages went, or null if unknown. */
  deleteInbox(id: string): Promise<{ messagesDeleted: number } | null>;
  /**
   * Deletes at most `maxInboxes` expired inboxes (omitted: all) with their
   * data; returns their ids in the order chosen: round one takes every owner's
   * (`SWEEP_OWNER_SQL`) inbox that expired first, round two every owner's
   * second, each round in expiry order. With several nodes on one database,
   * each expired inbox is returned by one call only.
   */
  sweepExpired(now: number, maxInboxes?: number): Promise<string[]>;
}

/** The messages aggregate of a {@link Store}. */
export interface MessageStore {
  /**
   * Stores one message in each of the given inboxes in a single transaction,
   * assigning each inbox's next seq. Resolves only once committed, with each
   * stored copy whole (as `findMessage` would read it), so that its event can
   * carry the whole message without another read. `envelopes` gives each
   * inbox's copy its SMTP envelope (by inbox id); a copy without one stores null.
   */
  insertMessage(inboxIds: string[], message: NewMessage, receivedAt: number, envelopes?: ReadonlyMap<string, MessageEnvelope>): Promise<MessageRecord[]>;
  /**
   * Newest first; the cursor stays valid while messages arrive and are deleted.
   * With `q`, only messages whose subject, sender, recipients or text contain it
   * (case-insensitively for ASCII letters).
   */
  listMessages(inboxId: string, page: { cursor: string | null; limit: number; q?: string | null }): Promise<StorePage<MessageSummaryRecord>>;
  /** Messages of an inbox with seq > afterSeq, oldest first (stream replay). */
  listMessagesAfterSeq(inboxId: string, afterSeq: number, limit: number): Promise<MessageSummaryRecord[]>;
  findMessage(id: string): Promise<MessageRecord | null>;
  findRaw(messageId: string): Promise<Uint8Array | null>;
  findAttachment(messageId: string, attachmentId: string): Promise<{ record: AttachmentRecord; content: Uint8Array } | null>;
  deleteMessage(id: string): Promise<boolean>;
  /** The ids of an inbox's messages marked seen (read), at most `limit` of them, oldest first. */
  listSeenMessageIds(inboxId: string, limit: number): Promise<string[]>;
  /** Marks a message seen (read) or not; false when there is no such message. */
  setMessageSeen(id: string, seen: boolean): Promise<boolean>;
  /** Deletes the oldest messages of an inbox beyond `keep`; returns how many went. */
  evictOldest(inboxId: string, keep: number): Promise<number>;
}

/** One hit counted in a fixed rate-limit window. */
export interface RateLimitHit {
  /** Hits in the current window, this one included. */
  count: number;
  /** When the current window started (epoch ms): the first hit after the previous window ended. */
  windowStart: number;
}

/** The rate-limit aggregate of a {@link Store}: fixed-window counters shared by every node of the store. */
export interface RateLimitStore {
  /**
   * Counts one hit for `key` at `now` (epoch ms) in a window of `windowMs`: a
   * window starts at the first hit after the previous one ended. Atomic across nodes.
   */
  hitRateLimit(key: string, windowMs: number, now: number): Promise<RateLimitHit>;
}

/** A delivery fault as stored: one per inbox, gone with the inbox. */
export interface DeliveryFaultRow {
  inboxId: string;
  /** SMTP reply code of the refusal, or null for a delay only. */
  code: number | null;
  /** Enhanced status code of the refusal, or null for a delay only. */
  enhancedStatus: string | null;
  /** Reply text of the refusal, or null for a delay only. */
  message: string | null;
  /** Attempts still affected; null: every one until cleared. */
  remaining: number | null;
  /** Wait before the reply, in milliseconds. */
  delayMs: number;
  /** When it was set, epoch milliseconds. */
  createdAt: number;
}

/** The delivery-fault aggregate of a {@link Store}: shared by every node of the store. */
export interface FaultStore {
  /** Sets (replaces) the fault of an inbox. */
  putDeliveryFault(fault: DeliveryFaultRow): Promise<void>;
  findDeliveryFault(inboxId: string): Promise<DeliveryFaultRow | null>;
  /** Removes the fault of an inbox; whether there was one. */
  deleteDeliveryFault(inboxId: string): Promise<boolean>;
  /**
   * Counts one delivery attempt against the inbox's fault, atomically across
   * nodes (removed once its count is spent); returns the fault as it was
   * before, or null when there is none.
   */
  takeDeliveryFault(inboxId: string): Promise<DeliveryFaultRow | null>;
}

/**
 * The service's storage: one interface per aggregate, every method async, no
 * backend type leaking out, so a PostgreSQL backend implements it as SQLite does.
 * A method fails with {@link StoreUnavailableError} (./errors.ts) when the
 * backend cannot be reached; callers answer "try again later".
 */
export interface Store extends DomainStore, CredentialStore, InboxStore, MessageStore, RateLimitStore, CapacityStore, FaultStore, RetentionStore, SmsVerificationStore, EmailTemplateStore, IdempotencyKeyStore {
  /** Releases the backend (idempotent). */
  close(): Promise<void>;
}
