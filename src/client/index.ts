/**
 * inboxkit's typed client of the Disposable Inbox API v1.
 *
 * @packageDocumentation
 */
export { createClient, InboxkitClient, VERSION } from './client.ts';
export type { ClientCredential } from './client.ts';
export { InboxHandle } from './inbox-handle.ts';
export { ApiPromise } from './api-promise.ts';
export { Page, PagePromise } from './pagination.ts';
export { InboxStream } from './stream.ts';
export type { InboxEvent, InboxMessageEvent, InboxReadyEvent, InboxGoneEvent, StreamOptions } from './stream.ts';
export type {
  AttachmentsResource,
  DomainsResource,
  ExtensionResource,
  InboxesResource,
  MeResource,
  MessagesResource,
  ListParams,
  AttachmentDownload,
  AttachmentStream,
  RawMessage,
} from './resources.ts';
export {
  InboxkitError,
  ApiError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  PayloadTooLargeError,
  RateLimitError,
  InternalServerError,
  ConnectionError,
  TimeoutError,
  AbortError,
  ResponseValidationError,
} from './errors.ts';
export type { ApiErrorInit } from './errors.ts';
export { createPkceVerifier, pkceChallenge } from './pkce.ts';
export type { ClientOptions, RequestOptions, RetryOptions, RateLimit, ResponseInfo, WithResponse } from './types.ts';
export type {
  Address,
  Attachment,
  ConnectCode,
  CreateInboxRequest,
  CredentialKind,
  DeletedInbox,
  DeletedMessage,
  Domain,
  Entitlements,
  Inbox,
  Me,
  Message,
  MessageSummary,
  Plan,
  SignedOut,
  Token,
  UpdateInboxRequest,
} from '../wire/schemas.ts';
