/**
 * The client's resource groups, one per part of the API.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import type { ConnectCode, CreateInboxRequest, DeletedInbox, DeletedMessage, Domain, Inbox, Me, Message, MessageSummary, SignedOut, Token, UpdateInboxRequest } from '../wire/schemas.ts';
import { ApiPromise } from './core/api-promise.ts';
import type { InboxkitClient } from './client.ts';
import { InboxkitError } from './core/errors.ts';
import { InboxHandle } from './inbox-handle.ts';
import type { PagePromise } from './core/pagination.ts';
import { InboxStream } from './stream/stream.ts';
import type { StreamOptions } from './stream/stream.ts';
import type { ListParams, RequestOptions, WithResponse } from './core/types.ts';
import { call, callMap, callOrEmpty, filenameOf, list, readPage, rejected } from './internal/calls.ts';
import { path } from './internal/path.ts';
import {
  LooseConnectCode,
  LooseDeletedInbox,
  LooseDeletedMessage,
  LooseDomain,
  LooseInbox,
  LooseMe,
  LooseMessage,
  LooseMessageSummary,
  LooseSignedOut,
  LooseToken,
} from './internal/schemas.ts';
import type { CallSpec, Transport } from './internal/transport.ts';
import { requestSpamCheck } from './spam-check.ts';
import type { SpamCheck } from '../wire/spam-check.ts';
import type { AttachmentDownload, AttachmentStream, RawMessage } from './core/types.ts';

export type { AttachmentDownload, AttachmentStream, RawMessage } from './core/types.ts';

/** `GET /domains`. */
export class DomainsResource {
  readonly #transport: Transport;
  /** Used by the client. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** The domains the service accepts mail for; one has `isDefault: true`. */
  list(options?: RequestOptions): ApiPromise<Domain[]> {
    const t = this.#transport;
    return callMap(t, { method: 'GET', path: '/domains' }, options, (answer) => {
      const page = readPage(t.envelope(answer));
      return t.validate(answer, z.array(LooseDomain), page ? page.items : t.envelope(answer).data);
    });
  }
}

/** Inboxes: create, list, get, update, delete, and their live stream. */
export class InboxesResource {
  readonly #transport: Transport;
  readonly #client: InboxkitClient;
  /** Used by the client. */
  constructor(transport: Transport, client: InboxkitClient) {
    this.#transport = transport;
    this.#client = client;
  }

  #handle(data: Inbox & { token?: string | undefined }, token: string | null): InboxHandle {
    const { token: _secret, ...inbox } = data;
    return new InboxHandle(this.#client, inbox, token);
  }

  /**
   * Creates an inbox: a random address on the default domain, or `localPart` and/or `domainId`
   * as given. The handle carries the inbox token, so a client without a key can use it.
   */
  create(params: CreateInboxRequest = {}, options?: RequestOptions): ApiPromise<InboxHandle> {
    const t = this.#transport;
    return callMap(t, { method: 'POST', path: '/inboxes', body: params }, options, (answer) => {
      const inbox = t.data(answer, LooseInbox);
      return this.#handle(inbox, inbox.token ?? null);
    });
  }

  /** The caller's active inboxes, newest first (with an inbox token: that one inbox). */
  list(options?: ListParams & RequestOptions): PagePromise<InboxHandle> {
    const t = this.#transport;
    return list(t, '/inboxes', options, (answer, items) => t.validate(answer, z.array(LooseInbox), items).map((inbox) => this.#handle(inbox, null)));
  }

  /** One inbox. */
  get(inboxId: string, options?: RequestOptions): ApiPromise<InboxHandle> {
    const t = this.#transport;
    return callMap(t, { method: 'GET', path: path`/inboxes/${inboxId}` }, options, (answer) =>
      this.#handle(t.data(answer, LooseInbox), options?.inboxToken ?? null),
    );
  }

  /** Changes the label and/or forwarding address; `null` clears a field. */
  update(inboxId: string, changes: UpdateInboxRequest, options?: RequestOptions): ApiPromise<InboxHandle> {
    if (changes.label === undefined && changes.forwardTo === undefined) {
      return rejected(new InboxkitError(`inboxes.update(${JSON.stringify(inboxId)}) needs at least one of label, forwardTo (null clears a field).`));
    }
    const t = this.#transport;
    return callMap(t, { method: 'PATCH', path: path`/inboxes/${inboxId}`, body: changes }, options, (answer) =>
      this.#handle(t.data(answer, LooseInbox), options?.inboxToken ?? null),
    );
  }

  /** Deletes an inbox and all its messages. */
  delete(inboxId: string, options?: RequestOptions): ApiPromise<DeletedInbox> {
    const gone: DeletedInbox = { id: inboxId, deleted: true, messagesDeleted: 0 };
    return callOrEmpty(this.#transport, { method: 'DELETE', path: path`/inboxes/${inboxId}` }, options, LooseDeletedInbox, gone);
  }

  /** The inbox's live events: see {@link InboxStream}. Connects on the first iteration. */
  stream(inboxId: string, options?: StreamOptions): InboxStream {
    return new InboxStream(this.#transport, inboxId, options);
  }

  /**
   * A handle for an inbox known from elsewhere (e.g. saved from an earlier `create()`),
   * with its inbox token when the client has no key.
   */
  fromData(inbox: Inbox, token: string | null = null): InboxHandle {
    return this.#handle(inbox, token);
  }
}

/** Messages: list an inbox's, get, delete, raw source. */
export class MessagesResource {
  readonly #transport: Transport;
  /** Used by the client. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** An inbox's messages, newest first: await for a page, `for await` for all. */
  list(inboxId: string, options?: ListParams & RequestOptions): PagePromise<MessageSummary> {
    const t = this.#transport;
    return list(t, path`/inboxes/${inboxId}/messages`, options, (answer, items) => t.validate(answer, z.array(LooseMessageSummary), items));
  }

  /** A whole message: summary, bodies (`html` sanitized), headers, attachments. */
  get(messageId: string, options?: RequestOptions): ApiPromise<Message> {
    return call(this.#transport, { method: 'GET', path: path`/messages/${messageId}` }, options, LooseMessage);
  }

  /** Deletes a message. */
  delete(messageId: string, options?: RequestOptions): ApiPromise<DeletedMessage> {
    const gone: DeletedMessage = { id: messageId, deleted: true };
    return callOrEmpty(this.#transport, { method: 'DELETE', path: path`/messages/${messageId}` }, options, LooseDeletedMessage, gone);
  }

  /**
   * Scores a message with the spam scanner of the service (an inboxkit
   * extension, `--spam-check`); throws a `SpamCheckUnavailableError` naming the
   * flag and how to install a scanner when the service has none.
   */
  spamCheck(messageId: string, options?: RequestOptions): ApiPromise<SpamCheck> {
    return requestSpamCheck(this.#transport, messageId, options);
  }

  /** The message's raw source as received over SMTP. */
  raw(messageId: string, options?: RequestOptions): ApiPromise<RawMessage> {
    return callMap(
      this.#transport,
      { method: 'GET', path: path`/messages/${messageId}/raw`, accept: 'message/rfc822, */*' },
      options,
      (answer) => ({
        bytes: new Uint8Array(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength),
        text: answer.body.toString('utf8'),
        contentType: answer.info.headers['content-type'] ?? 'message/rfc822',
      }),
    );
  }
}

/** Attachment downloads. */
export class AttachmentsResource {
  readonly #transport: Transport;
  /** Used by the client. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Downloads an attachment's bytes whole, with its file name and content type. */
  download(messageId: string, attachmentId: string, options?: RequestOptions): ApiPromise<AttachmentDownload> {
    const spec: CallSpec = { method: 'GET', path: path`/messages/${messageId}/attachments/${attachmentId}`, accept: '*/*' };
    return callMap(this.#transport, spec, options, (answer) => ({
      bytes: new Uint8Array(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength),
      filename: filenameOf(answer.info.headers['content-disposition']),
      contentType: answer.info.headers['content-type'] ?? 'application/octet-stream',
      size: answer.body.byteLength,
    }));
  }

  /**
   * Opens an attachment as a stream. The call resolves once the headers are in; the
   * `timeout` covers only that part, the `signal` the whole download.
   */
  stream(messageId: string, attachmentId: string, options?: RequestOptions): ApiPromise<AttachmentStream> {
    const spec: CallSpec = { method: 'GET', path: path`/messages/${messageId}/attachments/${attachmentId}`, accept: '*/*' };
    const t = this.#transport;
    return new ApiPromise(
      (async (): Promise<WithResponse<AttachmentStream>> => {
        const answer = await t.streaming(spec, options);
        const length = answer.info.headers['content-length'];
        const data: AttachmentStream = {
          stream: answer.body,
          filename: filenameOf(answer.info.headers['content-disposition']),
          contentType: answer.info.headers['content-type'] ?? 'application/octet-stream',
          size: length !== undefined && /^\d+$/.test(length) ? Number(length) : null,
        };
        return { data, response: answer.info };
      })(),
    );
  }
}

/** The current credential's user and plan; signing out a session. */
export class MeResource {
  readonly #transport: Transport;
  /** Used by the client. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Who the credential belongs to, which kind it is, and the plan's entitlements. */
  get(options?: RequestOptions): ApiPromise<Me> {
    return call(this.#transport, { method: 'GET', path: '/me' }, options, LooseMe);
  }

  /** Signs out the session token the client uses (`DELETE /me/session`). A 400 `not_a_session` for other credentials. */
  signOut(options?: RequestOptions): ApiPromise<SignedOut> {
    return callOrEmpty(this.#transport, { method: 'DELETE', path: '/me/session' }, options, LooseSignedOut, { signedOut: true });
  }
}

/** The browser extension's connect flow (PKCE). */
export class ExtensionResource {
  readonly #transport: Transport;
  /** Used by the client. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Exchanges a connect code and its PKCE verifier for a session token
   * (`POST /extension/token`). Use the token as `sessionToken` of a client.
   */
  exchange(code: string, codeVerifier: string, redirectUri: string, options?: RequestOptions): ApiPromise<Token> {
    return call(this.#transport, { method: 'POST', path: '/extension/token', body: { code, codeVerifier, redirectUri } }, options, LooseToken);
  }

  /**
   * Issues a connect code for an S256 challenge (`POST /extension/codes`, inboxkit's local
   * server; needs an API key: a session is refused, so no session makes another). Hosted
   * services may issue codes another way.
   */
  createCode(codeChallenge: string, redirectUri: string, options?: RequestOptions): ApiPromise<ConnectCode> {
    return call(
      this.#transport,
      { method: 'POST', path: '/extension/codes', body: { codeChallenge, codeChallengeMethod: 'S256', redirectUri } },
      options,
      LooseConnectCode,
    );
  }
}

