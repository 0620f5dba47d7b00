/**
 * The storage interface of the local service. Async methods and plain records
 * only, so that a PostgreSQL backend can implement it as well as SQLite.
 * Records use epoch milliseconds for times; the HTTP layer formats them.
 */

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

/** The credentials aggregate of a {@link Store}: users and their secrets (all stored as hashes; callers hash). */
export interface CredentialStore {
  createUser(user: { email: string; planId: string }): Promise<UserRecord>;
  findUserById(id: string): Promise<UserRecord | null>;
  findUserByEmail(email: string): Promise<UserRecord | null>;
  /**
   * Stores a hashed API key for a user. `configured` marks a key that comes from the
   * server's configuration (flag or environment) rather than `inboxkit keys create`.
   */
  addApiKey(userId: string, keyHash: string, options?: { configured?: boolean }): Promise<void>;
  /** Deletes the configured API keys whose hash is not in the list; returns how many went. */
  removeConfiguredApiKeysExcept(keyHashes: string[]): Promise<number>;
  /** Deletes an API key; returns the user it belonged to, or null when no such key was stored. */
  revokeApiKey(keyHash: string): Promise<{ userId: string } | null>;
  /** The user owning an API key hash, or null. */
  findUserByApiKeyHash(keyHash: string): Promise<UserRecord | null>;
  /** Stores a session for a user; `codeHash` links it to the connect code that issued it. */
  addSession(session: { tokenHash: string; userId: string; expiresAt: number; codeHash: string | null }): Promise<void>;
  findSession(tokenHash: string): Promise<{ userId: string; expiresAt: number; revoked: boolean } | null>;
  revokeSession(tokenHash: string): Promise<boolean>;
  /** Revokes every session issued by a connect code (on code replay). */
  revokeSessionsByCode(codeHash: string): Promise<number>;
  addConnectCode(code: { codeHash: string; userId: string; challenge: string; redirectUri: string; expiresAt: number }): Promise<void>;
  /** Marks a connect code used and returns it as it was before (null if unknown). Atomic. */
  spendConnectCode(codeHash: string): Promise<{ userId: string; challenge: string; redirectUri: string; expiresAt: number; used: boolean } | null>;
}

/** The inboxes aggregate of a {@link Store}. */
export interface InboxStore {
  /**
   * Creates an inbox; `'address_taken'` when an active inbox has the address
   * (local part compared case-insensitively). An expired inbox with the address is deleted first.
   */
  createInbox(inbox: { localPart: string; domainId: string; ownerUserId: string | null; label: string | null; tokenHash: string; createdAt: number; expiresAt: number | null }): Promise<InboxRecord | 'address_taken'>;
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
  updateInbox(id: string, patch: { label?: string | null; forwardTo?: string | null }): Promise<InboxRecord | null>;
  /** Deletes an inbox with its messages; returns how many messages went, or null if unknown. */
  deleteInbox(id: string): Promise<{ messagesDeleted: number } | null>;
  /**
   * Deletes expired inboxes and their data; returns their ids. With several
   * nodes on one database, each expired inbox is returned by one call only.
   */
  sweepExpired(now: number): Promise<string[]>;
}

/** The messages aggregate of a {@link Store}. */
export interface MessageStore {
  /**
   * Stores one message in each of the given inboxes in a single transaction,
   * assigning each inbox's next seq. Resolves only once committed, with each
   * stored copy whole (as `findMessage` would read it), so that its event can
   * carry the whole message without another read.
   */
  insertMessage(inboxIds: string[], message: NewMessage, receivedAt: number): Promise<MessageRecord[]>;
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

/**
 * The service's storage: one interface per aggregate, every method async, no
 * backend type leaking out, so a PostgreSQL backend implements it as SQLite does.
 * A method fails with {@link StoreUnavailableError} (./errors.ts) when the
 * backend cannot be reached; callers answer "try again later".
 */
export interface Store extends DomainStore, CredentialStore, InboxStore, MessageStore, RateLimitStore {
  /** Releases the backend (idempotent). */
  close(): Promise<void>;
}
