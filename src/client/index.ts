/**
 * inboxkit's typed client of the Disposable Inbox API v1.
 *
 * @packageDocumentation
 */
export { createClient, InboxkitClient, VERSION } from './client.ts';
export type { ClientCredential } from './client.ts';
export { InboxHandle } from './inbox-handle.ts';
export { ReceivedMessage } from './received.ts';
export type { ReceivedAttachment } from './received.ts';
export { describeCriteria, matchesPattern } from './criteria.ts';
export type { MessageCriteria, MessagePredicate, MessageMatch } from './criteria.ts';
export { DEFAULT_POLL_INTERVALS, DEFAULT_WAIT_TIMEOUT } from './wait.ts';
export type { WaitOptions, ExpectNoMessageOptions } from './wait.ts';
export { WaitTimeoutError, UnexpectedMessageError } from './wait-errors.ts';
export type { WaitMismatch, WaitTimeoutInit } from './wait-errors.ts';
export {
  extractLinks,
  findLink,
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
  OtpOptions,
  RejectedOtp,
  UnwrapResult,
} from '../extract/index.ts';
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
export { checkCompatibility, resolveEmailClients } from './compatibility.ts';
export type { CompatibilityReport, ClientCompatibility, CompatibilityScore, FeatureUse, EmailClientNames } from './compatibility.ts';
export { FaultsResource, DeliveryFaultsUnsupportedError, checkDeliveryFault } from './faults.ts';
export type { DeliveryFaultOptions } from './faults.ts';
export type { DeliveryFault, ClearedDeliveryFault } from '../wire/faults.ts';
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
