/**
 * The inbox handle: an inbox's data plus the calls that act on it, authorised
 * with the inbox's own token when the client has no API key or session token.
 *
 * The waits (`waitForMessage`, `waitForMessages`, `expectNoMessage`, `peek`)
 * live in wait/; the handle holds their state (which messages it already
 * returned), so successive waits on one handle return successive messages, and
 * hands them the inbox as a `WaitSource` made of the client's calls, so the
 * waits never call back into the handle.
 *
 * @packageDocumentation
 */
import type { SpamCheck } from '../wire/spam-check.ts';
import type { DeletedInbox, DeletedMessage, Inbox, Message, MessageSummary, UpdateInboxRequest } from '../wire/schemas.ts';
import { ApiPromise } from './core/api-promise.ts';
import type { InboxkitClient } from './client.ts';
import type { PagePromise } from './core/pagination.ts';
import type { AttachmentDownload, AttachmentStream, RawMessage } from './core/types.ts';
import type { MessageMatch } from './message/criteria.ts';
import type { ClearedDeliveryFault, DeliveryFault } from '../wire/faults.ts';
import type { DeliveryFaultOptions } from './faults.ts';
import { systemClock } from './internal/clock.ts';
import { ReceivedMessage } from './message/received.ts';
import type { InboxStream, StreamOptions } from './stream/stream.ts';
import type { ListParams, RequestOptions } from './core/types.ts';
import { atCallSite, captureCallSite } from '../errors/call-site.ts';
import { WaitState, absenceSpec, peekSpec, runWait, waitSpec } from './wait/index.ts';
import type { ExpectNoMessageOptions, PeekOptions, WaitOptions, WaitSource } from './wait/index.ts';

/**
 * An inbox and what can be done with it. `inboxes.create()` returns one carrying
 * the inbox token (`token`), so a client without an API key (a guest) can read
 * the inbox's mail through it. Its data fields are a snapshot, refreshed by
 * `refresh()` and `update()`.
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8025' });
 * const inbox = await client.inboxes.create({ label: 'sign-up test' });
 * // … make the app send mail to inbox.address …
 * for await (const summary of inbox.messages()) console.log(summary.subject);
 * await inbox.delete();
 * ```
 */
export class InboxHandle {
  readonly #client: InboxkitClient;
  readonly #waits = new WaitState();
  readonly #source: WaitSource;
  #data: Inbox;
  /** The inbox token (`X-Inbox-Token`); `null` when the handle was not made by `inboxes.create()`. */
  readonly token: string | null;

  /** Used by the client; get handles from `client.inboxes`. */
  constructor(client: InboxkitClient, data: Inbox, token: string | null) {
    this.#client = client;
    this.#data = data;
    this.token = token;
    this.#source = this.#waitSource();
  }

  /** The inbox as the waits see it: the client's calls, authorised for this inbox. */
  #waitSource(): WaitSource {
    const client = this.#client;
    const address = () => this.address;
    return {
      get address() {
        return address();
      },
      clock: systemClock,
      stream: (options) => client.inboxes.stream(this.id, this.requestOptions(options)),
      messages: (options) => client.messages.list(this.id, this.requestOptions(options)),
      message: (id, options) => client.messages.get(id, this.requestOptions(options)),
      wrap: (message) => this.wrapMessage(message),
    };
  }

  /**
   * Builds the message object the waits return for a message of this inbox.
   * A subclass overrides it to return a richer message (the Playwright
   * fixtures return a `TestMessage`), so each message is built once.
   */
  protected wrapMessage(data: Message): ReceivedMessage {
    return new ReceivedMessage(this, data);
  }

  /** The client this handle calls through. */
  get client(): InboxkitClient {
    return this.#client;
  }

  /** The inbox as the server last described it (including fields this client version does not know). */
  get data(): Inbox {
    return this.#data;
  }

  /** Inbox id. */
  get id(): string {
    return this.#data.id;
  }

  /** The full address, `localPart@domain`. */
  get address(): string {
    return this.#data.address;
  }

  /** The phone number (E.164) of a phone (`client.phones.create()`), or `null` for an email inbox. */
  get phoneNumber(): string | null {
    return this.#data.phoneNumber ?? null;
  }

  /** The part before `@`. */
  get localPart(): string {
    return this.#data.localPart;
  }

  /** The domain after `@`. */
  get domain(): string {
    return this.#data.domain;
  }

  /** Id of the inbox's domain. */
  get domainId(): string {
    return this.#data.domainId;
  }

  /** The label, or `null`. */
  get label(): string | null {
    return this.#data.label;
  }

  /** Where new mail is forwarded, or `null`. */
  get forwardTo(): string | null {
    return this.#data.forwardTo;
  }

  /** Creation time, ISO 8601. */
  get createdAt(): string {
    return this.#data.createdAt;
  }

  /** Expiry time, ISO 8601, or `null` when the inbox never expires. */
  get expiresAt(): string | null {
    return this.#data.expiresAt;
  }

  /** Messages in the inbox when the snapshot was taken. */
  get messageCount(): number {
    return this.#data.messageCount;
  }

  /**
   * The request options for a call about this inbox: the caller's options plus the
   * inbox token when the client has no API key or session token.
   */
  requestOptions<O extends RequestOptions>(options?: O): O {
    const base = (options ?? {}) as O;
    if (this.#client.credential === 'apiKey' || this.#client.credential === 'session') return base;
    if (this.token === null || base.inboxToken !== undefined) return base;
    return { ...base, inboxToken: this.token };
  }

  #replacing(promise: ApiPromise<InboxHandle>): ApiPromise<this> {
    return new ApiPromise(
      promise.withResponse().then(({ data, response }) => {
        this.#data = data.data;
        return { data: this, response };
      }),
    );
  }

  /** Reads the inbox again and updates this handle's data. */
  refresh(options?: RequestOptions): ApiPromise<this> {
    return this.#replacing(this.#client.inboxes.get(this.id, this.requestOptions(options)));
  }

  /** Changes the label and/or forwarding address (`null` clears) and updates this handle's data. */
  update(changes: UpdateInboxRequest, options?: RequestOptions): ApiPromise<this> {
    return this.#replacing(this.#client.inboxes.update(this.id, changes, this.requestOptions(options)));
  }

  /** Deletes the inbox and its messages. */
  delete(options?: RequestOptions): ApiPromise<DeletedInbox> {
    return this.#client.inboxes.delete(this.id, this.requestOptions(options));
  }

  /** The inbox's messages, newest first: await for a page, `for await` for all. */
  messages(options?: ListParams & RequestOptions): PagePromise<MessageSummary> {
    return this.#client.messages.list(this.id, this.requestOptions(options));
  }

  /** One whole message (bodies, headers, attachments). */
  message(messageId: string, options?: RequestOptions): ApiPromise<Message> {
    return this.#client.messages.get(messageId, this.requestOptions(options));
  }

  /** Deletes one message. */
  deleteMessage(messageId: string, options?: RequestOptions): ApiPromise<DeletedMessage> {
    return this.#client.messages.delete(messageId, this.requestOptions(options));
  }

  /** The raw RFC 5322 source of a message. */
  raw(messageId: string, options?: RequestOptions): ApiPromise<RawMessage> {
    return this.#client.messages.raw(messageId, this.requestOptions(options));
  }

  /** Scores a message with the service's spam scanner (see `messages.spamCheck()`). */
  spamCheck(messageId: string, options?: RequestOptions): ApiPromise<SpamCheck> {
    return this.#client.messages.spamCheck(messageId, this.requestOptions(options));
  }

  /** Downloads an attachment's bytes. */
  downloadAttachment(messageId: string, attachmentId: string, options?: RequestOptions): ApiPromise<AttachmentDownload> {
    return this.#client.attachments.download(messageId, attachmentId, this.requestOptions(options));
  }

  /** Opens an attachment as a stream of bytes. */
  streamAttachment(messageId: string, attachmentId: string, options?: RequestOptions): ApiPromise<AttachmentStream> {
    return this.#client.attachments.stream(messageId, attachmentId, this.requestOptions(options));
  }

  /** The inbox's live events (see `InboxStream`). */
  stream(options?: StreamOptions): InboxStream {
    return this.#client.inboxes.stream(this.id, this.requestOptions(options));
  }

  /**
   * Waits for a message that matches and returns it whole, with `links()`,
   * `link()`, `otp()` …
   *
   * Race-free: messages already in the inbox that no earlier wait of this handle
   * returned are considered first, oldest first, then new ones, so the wait may
   * start before or after the action that sends the mail. Each message is
   * returned once per handle: two waits in a row return two successive messages.
   * `since: 'now'` ignores what is already there.
   *
   * New mail is pushed by the inbox's event stream; when the stream is
   * unavailable (no such endpoint, a buffering proxy, repeated drops) the
   * message list is polled with backoff (`pollIntervals`), honouring
   * `X-RateLimit-Remaining` and `Retry-After`, and the stream is tried again
   * every few seconds.
   *
   * @throws WaitTimeoutError after `timeout` ms, listing what arrived and which criterion each failed.
   * @throws AbortError when `signal` aborts (its reason is the `cause`).
   * @example
   * ```ts
   * const message = await inbox.waitForMessage({ subject: /confirm/i, from: 'no-reply@acme.example' }, { timeout: 10_000 });
   * await page.goto(message.link('Confirm email').href);
   * ```
   */
  async waitForMessage(match?: MessageMatch, options?: WaitOptions): Promise<ReceivedMessage> {
    const site = captureCallSite(InboxHandle.prototype.waitForMessage);
    try {
      const [message] = await runWait(this.#source, this.#waits, waitSpec('waitForMessage', 1, match, options));
      return message as ReceivedMessage;
    } catch (error) {
      throw atCallSite(error, site);
    }
  }

  /**
   * Waits for `count` distinct messages that match and returns them in arrival
   * order (see {@link InboxHandle.waitForMessage} for how messages are found).
   * A `WaitTimeoutError` says how many were found.
   *
   * @example
   * ```ts
   * const [first, second] = await inbox.waitForMessages(2, { subject: 'Invoice' });
   * ```
   */
  async waitForMessages(count: number, match?: MessageMatch, options?: WaitOptions): Promise<ReceivedMessage[]> {
    const site = captureCallSite(InboxHandle.prototype.waitForMessages);
    try {
      return await runWait(this.#source, this.#waits, waitSpec('waitForMessages', count, match, options));
    } catch (error) {
      throw atCallSite(error, site);
    }
  }

  /**
   * Resolves when no message that matches arrives within `options.within` ms;
   * rejects with an `UnexpectedMessageError` naming the message otherwise. With
   * `since: 'backlog'` (the default) a matching message already in the inbox
   * (not returned by an earlier wait of this handle) fails it too.
   *
   * @example
   * ```ts
   * await inbox.expectNoMessage({ subject: /welcome/i }, { within: 2_000 });
   * ```
   */
  async expectNoMessage(match: MessageMatch | undefined, options: ExpectNoMessageOptions): Promise<void> {
    const site = captureCallSite(InboxHandle.prototype.expectNoMessage);
    try {
      await runWait(this.#source, this.#waits, absenceSpec(match, options));
    } catch (error) {
      throw atCallSite(error, site);
    }
  }

  /**
   * Looks for a message that matches without consuming it: every message of the
   * inbox counts, including ones earlier waits of this handle returned, and the
   * one found stays there for the next `waitForMessage()`. Resolves with the
   * oldest match already in the inbox; otherwise with the first one that
   * arrives within `options.within` ms (default 0: only look at what is there
   * now); `null` when there is none. This is what `expect(inbox).toHaveReceived()`
   * uses.
   *
   * @throws AbortError when `signal` aborts.
   * @example
   * ```ts
   * const welcome = await inbox.peek({ subject: /welcome/i });
   * if (welcome === null) console.log('no welcome mail yet');
   * const invoice = await inbox.peek({ subject: 'Invoice' }, { within: 5_000 });
   * ```
   */
  async peek(match?: MessageMatch, options?: PeekOptions): Promise<ReceivedMessage | null> {
    const site = captureCallSite(InboxHandle.prototype.peek);
    try {
      const [message] = await runWait(this.#source, this.#waits, peekSpec(match, options));
      return message ?? null;
    } catch (error) {
      throw atCallSite(error, site);
    }
  }

  /**
   * Every message this handle has read whole (the ones its waits returned, and
   * the ones they had to read to check body criteria or a predicate), in
   * arrival order. Synchronous, so a failing test can attach them to its report.
   */
  receivedMessages(): readonly ReceivedMessage[] {
    return this.#waits.all();
  }

  /**
   * Makes the local service refuse or delay this inbox's next deliveries (an
   * inboxkit extension): with `code`, the SMTP intake refuses the address at
   * `RCPT TO` (4xx temporary, 5xx permanent, with an RFC 3463 enhanced status:
   * 451 → `451 4.3.0`, 550 → `550 5.7.1`) for `count` attempts, every attempt
   * when `count` is left out; with `delayMs`, the reply (the refusal, or else the
   * `250`) waits that long. Other inboxes are never affected; the fault goes
   * with the inbox. Replaces a fault set before.
   *
   * @throws InboxkitError naming the field when the fault is invalid (code outside 400–599, count below 1 …), before any request.
   * @throws DeliveryFaultsUnsupportedError when the server does not offer the extension (404/405).
   * @example
   * ```ts
   * await inbox.failDeliveries({ code: 451, count: 2 }); // two attempts deferred, the third delivered
   * ```
   */
  failDeliveries(fault: DeliveryFaultOptions, options?: RequestOptions): ApiPromise<DeliveryFault> {
    return this.#client.faults.set(this.id, fault, this.requestOptions(options));
  }

  /** The delivery fault in force for this inbox, or `null` (see {@link InboxHandle.failDeliveries}). */
  deliveryFault(options?: RequestOptions): ApiPromise<DeliveryFault | null> {
    return this.#client.faults.get(this.id, this.requestOptions(options));
  }

  /** Clears this inbox's delivery fault: mail is accepted normally again. */
  clearDeliveryFaults(options?: RequestOptions): ApiPromise<ClearedDeliveryFault> {
    return this.#client.faults.clear(this.id, this.requestOptions(options));
  }

  /** Wraps a whole message of this inbox (from `message(id)`) as a {@link ReceivedMessage}. */
  received(message: Message): ReceivedMessage {
    return new ReceivedMessage(this, message);
  }

  /** The inbox's data, without the token (so logging a handle does not leak it). */
  toJSON(): Inbox {
    return this.#data;
  }
}
