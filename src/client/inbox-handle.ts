/**
 * The inbox handle: an inbox's data plus the calls that act on it, authorised
 * with the inbox's own token when the client has no API key or session token.
 *
 * Extending the handle: other modules of src/client add methods by declaration
 * merging plus a prototype assignment, using only the handle's public members
 * (`client`, `requestOptions()`, `messages()`, `message()`, `stream()`):
 *
 * ```ts
 * // src/client/wait.ts
 * import { InboxHandle } from './inbox-handle.ts';
 * declare module './inbox-handle.ts' {
 *   interface InboxHandle { waitForMessage(options?: WaitOptions): Promise<Message>; }
 * }
 * InboxHandle.prototype.waitForMessage = function (this: InboxHandle, options) { … };
 * ```
 * and src/client/index.ts imports that module (so the methods exist wherever the
 * client is used) and exports its types.
 *
 * @packageDocumentation
 */
import type { DeletedInbox, DeletedMessage, Inbox, Message, MessageSummary, UpdateInboxRequest } from '../wire/schemas.ts';
import { ApiPromise } from './api-promise.ts';
import type { InboxkitClient } from './client.ts';
import type { PagePromise } from './pagination.ts';
import type { AttachmentDownload, AttachmentStream, ListParams, RawMessage } from './resources.ts';
import type { InboxStream, StreamOptions } from './stream.ts';
import type { RequestOptions } from './types.ts';

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
  #data: Inbox;
  /** The inbox token (`X-Inbox-Token`); `null` when the handle was not made by `inboxes.create()`. */
  readonly token: string | null;

  /** Used by the client; get handles from `client.inboxes`. */
  constructor(client: InboxkitClient, data: Inbox, token: string | null) {
    this.#client = client;
    this.#data = data;
    this.token = token;
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

  /** The inbox's data, without the token (so logging a handle does not leak it). */
  toJSON(): Inbox {
    return this.#data;
  }
}
