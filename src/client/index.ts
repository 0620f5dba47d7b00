/**
 * inboxkit's typed client of the Disposable Inbox API v1.
 *
 * @packageDocumentation
 */
export { createClient, InboxkitClient, VERSION } from './client.ts';
export type { ClientCredential } from './client.ts';
export { InboxHandle } from './inbox-handle.ts';
export { ReceivedMessage } from './received.ts';
export type { ReceivedAttachment, MessageOwner } from './received.ts';
export { formatAddress } from './format.ts';
export { atCallSite, callLocation, captureCallSite, throwFromCall } from './call-site.ts';
export type { CallLocation, CallSite } from './call-site.ts';
export { describeCriteria, matchesPattern } from './criteria.ts';
export type { MessageCriteria, MessagePredicate, MessageMatch } from './criteria.ts';
export { DEFAULT_POLL_INTERVALS, DEFAULT_WAIT_TIMEOUT, WaitTimeoutError, UnexpectedMessageError } from './wait/index.ts';
export type { WaitOptions, ExpectNoMessageOptions, PeekOptions, WaitMismatch, WaitTimeoutInit } from './wait/index.ts';
export {
  extractLinks,
  findLink,
  describeLinkFilter,
  extractOtp,
  extractOtps,
  unwrapTrackingUrl,
  ExtractionError,
  LinkNotFoundError,
  AmbiguousLinkError,
  OtpNotFoundError,
} from '../extract/index.ts';
export type {
  ExtractedLink,
  ExtractInput,
  ExtractSource,
  LinkFilter,
  LinkFilterArg,
  LinkOptions,
  LinkQuery,
  OtpCandidate,
  OtpCandidates,
  OtpOptions,
  RejectedOtp,
  UnwrapResult,
} from '../extract/index.ts';
export { ApiPromise } from './api-promise.ts';
export { Page, PagePromise } from './pagination.ts';
export { InboxStream } from './stream.ts';
export type { InboxEvent, InboxMessageEvent, InboxReadyEvent, InboxGoneEvent, StreamLifecycleEvent, StreamOptions } from './stream.ts';
export type {
  AttachmentsResource,
  DomainsResource,
  ExtensionResource,
  InboxesResource,
  MeResource,
  MessagesResource,
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
export type { ClientOptions, RequestOptions, ListParams, RetryOptions, RateLimit, ResponseInfo, WithResponse } from './types.ts';
export { DEFAULT_HTTP_PORT, DEFAULT_SMTP_PORT, urlHost } from '../wire/defaults.ts';
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
