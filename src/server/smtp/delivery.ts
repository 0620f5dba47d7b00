/**
 * What the SMTP intake does with one message, apart from the SMTP
 * conversation (`listener.ts`): look the recipients up, prepare the message,
 * store a copy per inbox, then publish and forward.
 *
 * @packageDocumentation
 */
import type { SMTPServerSession } from 'smtp-server';
import type { EventBus } from '../events/types.ts';
import type { ForwardQueue } from '../forward/forwarder.ts';
import type { DeliveryFaults } from '../faults/table.ts';
import { prepareMessage } from '../mail/prepare.ts';
import type { PrepareOptions, PreparedMessage } from '../mail/prepare.ts';
import type { InboxRecord, MessageEnvelope, MessageRecord, NewMessage, Store } from '../storage/contract/types.ts';
import { normaliseLineEndings } from './line-endings.ts';
import { createRoomKeeper } from './make-room.ts';

/** The logging the intake needs (a pino logger fits). */
export interface IntakeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Limits of the SMTP intake. */
export interface IntakeLimits {
  /**
   * Largest message accepted, in bytes; announced with SIZE, refused with 552.
   * @defaultValue 10 MiB
   */
  maxMessageBytes: number;
  /**
   * Recipients per message; the next RCPT gets 452.
   * @defaultValue 100
   */
  maxRecipients: number;
  /**
   * Messages kept per inbox: once over it, the oldest are evicted after each
   * delivery (mail is never refused for a full inbox). `null`: no limit.
   * @defaultValue null
   */
  maxMessagesPerInbox: number | null;
  /**
   * Bytes of mail (raw sizes) the store may hold: past it, the oldest messages
   * of the largest inboxes are evicted after each delivery. `null`: no cap.
   * @defaultValue null
   */
  maxStoredBytes?: number | null;
}

/** Everything the intake depends on, injected. */
export interface IntakeDeps {
  store: Store;
  bus: EventBus;
  logger: IntakeLogger;
  now(): number;
  limits: IntakeLimits;
  /** Where copies for forwarding inboxes go; `null` when the server has no relay. */
  forwarder: ForwardQueue | null;
  /** Per-inbox delivery faults to honour (an extension); none when absent. */
  faults?: DeliveryFaults | null;
  /**
   * Parses a received message and sanitizes its HTML (a `MailPool`'s `prepare`
   * moves large messages off the event loop).
   * @defaultValue `prepareMessage`, on the calling thread
   */
  prepare?: (raw: Uint8Array, options: PrepareOptions) => Promise<PreparedMessage>;
}

/** An SMTP reply carried by an error (smtp-server reads `responseCode`). */
export function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Splits `local@domain` at its last `@`; null when there is none. */
function splitAddress(address: string): { localPart: string; domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return { localPart: address.slice(0, at), domain: address.slice(at + 1) };
}

/**
 * The intake's two steps past the SMTP dialogue: finding the active inbox of a
 * recipient, and delivering a received message (parse, sanitize the HTML with
 * its `cid:` images resolved, store a copy per inbox, evict, then publish the
 * whole stored copies and queue forwarding once committed). All the work a
 * message needs is done here, once: readers only read. `deliver` resolves
 * with the 250 reply text, or rejects with an SMTP error.
 */
export function createDelivery(deps: IntakeDeps, parseTimeoutMs: number) {
  const { store, bus, logger, limits } = deps;
  const prepare = deps.prepare ?? prepareMessage;
  const room = limits.maxStoredBytes == null ? null : createRoomKeeper(store, limits.maxStoredBytes, logger);

  const findInbox = async (address: string): Promise<InboxRecord | null> => {
    const parts = splitAddress(address);
    if (!parts) return null;
    // The store matches the local part and the domain in any case: addresses are unique regardless of case,
    // and many applications lower-case the addresses users type.
    return store.findActiveInboxByAddress(parts.localPart, parts.domain, deps.now());
  };

  /** Stores one copy per inbox in one transaction, evicts, then (committed) publishes and queues forwarding. */
  const storeCopies = async (inboxes: Map<string, InboxRecord>, message: NewMessage, session: SMTPServerSession, data: Uint8Array, envelopes: ReadonlyMap<string, MessageEnvelope>): Promise<MessageRecord[]> => {
    if (inboxes.size === 0) return [];
    const stored = await store.insertMessage([...inboxes.keys()], message, deps.now(), envelopes);
    if (limits.maxMessagesPerInbox !== null) {
      for (const inboxId of inboxes.keys()) {
        const evicted = await store.evictOldest(inboxId, limits.maxMessagesPerInbox);
        if (evicted > 0) logger.info({ inboxId, evicted }, 'smtp: oldest messages evicted (messages per inbox limit)');
      }
    }
    await room?.stored(stored.reduce((sum, record) => sum + record.size, 0));
    // Committed: from here on nothing may turn the 250 into a failure.
    const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    for (const record of stored) {
      try {
        bus.publish({ type: 'message', inboxId: record.inboxId, message: record });
      } catch (error) {
        logger.error({ err: error, messageId: record.id }, 'smtp: publishing the message event failed');
      }
      const forwardTo = inboxes.get(record.inboxId)?.forwardTo;
      if (forwardTo && deps.forwarder) {
        deps.forwarder.enqueue({ messageId: record.id, inboxId: record.inboxId, to: forwardTo, envelopeFrom, raw: data });
      }
    }
    return stored;
  };

  /**
   * Delivers a received message: the copies of inboxes without a delay fault
   * at once, then, after the longest delay, the held ones (re-checked: an
   * inbox may go while it waits). `held` maps held inbox ids to their delays.
   */
  const deliver = async (raw: Uint8Array, session: SMTPServerSession, held: Map<string, number> = new Map()): Promise<string> => {
    const { data, bareLineEndings } = normaliseLineEndings(raw);
    const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const recipients = session.envelope.rcptTo.map((r) => r.address);
    // Looked up again: an inbox may have been deleted or expired since RCPT.
    // Each copy records its envelope, with only the recipients routed to its own inbox.
    const envelopes = new Map<string, MessageEnvelope>();
    const lookUp = async () => {
      const found = await Promise.all(recipients.map((address) => findInbox(address)));
      const inboxes = new Map<string, InboxRecord>();
      envelopes.clear();
      found.forEach((inbox, index) => {
        if (!inbox) return;
        inboxes.set(inbox.id, inbox);
        const envelope = envelopes.get(inbox.id) ?? { mailFrom: envelopeFrom, rcptTo: [], clientAddress: session.remoteAddress || null, helo: session.hostNameAppearsAs || null };
        envelope.rcptTo.push(recipients[index] ?? '');
        envelopes.set(inbox.id, envelope);
      });
      return inboxes;
    };
    const inboxes = await lookUp();
    if (inboxes.size === 0) {
      throw smtpError(550, '5.1.1 None of the recipients has an active inbox any more; create the inbox and send again');
    }
    const { message, fallbackReason } = await prepare(data, { envelopeFrom, timeoutMs: parseTimeoutMs });
    if (fallbackReason !== null) {
      logger.warn({ sessionId: session.id, reason: fallbackReason }, 'smtp: message could not be fully parsed; stored with its raw source and headers');
    }
    if (bareLineEndings > 0) {
      logger.info({ sessionId: session.id, bareLineEndings }, 'smtp: bare line endings normalised to CRLF');
    }
    const now = new Map([...inboxes].filter(([id]) => !held.has(id)));
    const stored = await storeCopies(now, message, session, data, envelopes);
    if (held.size > 0) {
      await deps.faults?.delay(Math.max(...held.values()));
      const later = new Map([...(await lookUp())].filter(([id]) => held.has(id)));
      stored.push(...(await storeCopies(later, message, session, data, envelopes)));
    }
    if (stored.length === 0) {
      throw smtpError(550, '5.1.1 The recipient inboxes were deleted while the message was being sent; nothing was stored');
    }
    logger.info({ sessionId: session.id, messageIds: stored.map((s) => s.id), size: data.byteLength }, 'smtp: message stored');
    return `2.0.0 OK: stored as ${stored.map((s) => s.id).join(', ')}`;
  };

  return { findInbox, deliver };
}
