/**
 * inboxkit: test email flows against a local or hosted Disposable Inbox API.
 * The main entry is the typed client; see `inboxkit/playwright` and `inboxkit/server`.
 *
 * This list is the package's public surface, on purpose: a name exported by a
 * module below but not listed here is internal.
 *
 * @packageDocumentation
 */
// First: fails with one line on an unsupported Node.js, before any dependency loads.
import './runtime/node-check.ts';

// The client and its calls.
export { createClient, InboxkitClient, VERSION, InboxHandle, ApiPromise, Page, PagePromise, InboxStream, createPkceVerifier, pkceChallenge } from './client/index.ts';
export type {
  ClientCredential,
  ClientOptions,
  RequestOptions,
  RetryOptions,
  RateLimit,
  ResponseInfo,
  WithResponse,
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
  InboxEvent,
  InboxMessageEvent,
  InboxReadyEvent,
  InboxGoneEvent,
  StreamLifecycleEvent,
  StreamOptions,
} from './client/index.ts';

// Waiting for mail, and what a wait returns.
export { ReceivedMessage, describeCriteria, matchesPattern, formatAddress, DEFAULT_POLL_INTERVALS, DEFAULT_WAIT_TIMEOUT } from './client/index.ts';
export type {
  ReceivedAttachment,
  MessageOwner,
  MessageCriteria,
  MessagePredicate,
  MessageMatch,
  WaitOptions,
  ExpectNoMessageOptions,
  PeekOptions,
  WaitMismatch,
  WaitTimeoutInit,
} from './client/index.ts';

// Links and one-time codes.
export { extractLinks, findLink, extractOtp, extractOtps, unwrapTrackingUrl } from './client/index.ts';
export type { ExtractedLink, ExtractInput, ExtractSource, LinkFilter, LinkFilterArg, LinkOptions, LinkQuery, OtpCandidate, OtpOptions, RejectedOtp, UnwrapResult } from './client/index.ts';

// Errors: one root, a subclass per failure kind.
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
  WaitTimeoutError,
  UnexpectedMessageError,
  ExtractionError,
  LinkNotFoundError,
  AmbiguousLinkError,
  OtpNotFoundError,
} from './client/index.ts';
export type { ApiErrorInit } from './client/index.ts';

// The local service's defaults.
export { DEFAULT_HTTP_PORT, DEFAULT_SMTP_PORT, urlHost } from './client/index.ts';

// The wire shapes (what the server sends).
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
} from './client/index.ts';
