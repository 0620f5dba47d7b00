/**
 * inboxkit: test email flows against a local or hosted Disposable Inbox API.
 * The main entry (`inboxkit`) is this typed client of the Disposable Inbox API
 * v1; see `inboxkit/playwright` and `inboxkit/server`.
 *
 * This list is the package's public surface, on purpose: a name exported by a
 * module of src/client or src/extract but not listed here is internal, and
 * every name here is documented (README.md or docs/*.md;
 * tests/unit/public-surface.spec.ts checks it). The fixtures reach the
 * client's plumbing through `internals.ts`, which is not exported.
 *
 * @packageDocumentation
 */
// First: fails with one line on an unsupported Node.js, before any dependency loads.
import '../runtime/node-check.ts';

export { createClient, InboxkitClient, VERSION } from './client.ts';
export type { ClientCredential } from './client.ts';
export { InboxHandle } from './inbox-handle.ts';
export { ReceivedMessage } from './message/received.ts';
export type { ReceivedAttachment, MessageOwner } from './message/received.ts';
export type { MessageCriteria, MessagePredicate, MessageMatch } from './message/criteria.ts';
export { DEFAULT_POLL_INTERVALS, DEFAULT_WAIT_TIMEOUT, WaitTimeoutError, UnexpectedMessageError } from './wait/index.ts';
export type { WaitOptions, ExpectNoMessageOptions, PeekOptions, WaitMismatch, WaitTimeoutInit } from './wait/index.ts';
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
  OtpCandidates,
  OtpOptions,
  RejectedOtp,
  UnwrapResult,
} from '../extract/index.ts';
export { ApiPromise } from './core/api-promise.ts';
export { Page, PagePromise } from './core/pagination.ts';
export { InboxStream } from './stream/stream.ts';
export type { InboxEvent, InboxMessageEvent, InboxReadyEvent, InboxGoneEvent, InboxAccessRevokedEvent, StreamLifecycleEvent, StreamOptions, StreamState } from './stream/stream.ts';
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
} from './core/errors.ts';
export type { ApiErrorInit } from './core/errors.ts';
export { createPkceVerifier, pkceChallenge } from './pkce.ts';
export type { ClientOptions, RequestOptions, ListParams, RetryOptions, RateLimit, ResponseInfo, WithResponse } from './core/types.ts';
export { checkCompatibility } from './message/compatibility.ts';
export type { CheckedLink, LinkCheckContext, LinkCheckOptions, LinkCheckReport, LinkRequester, LinkResponse } from './link-check.ts';
export type { AuthenticationOptions, AuthenticationReport, DkimSignatureResult } from './message/authentication.ts';
export { checkContent, CONTENT_RULES, GMAIL_CLIP_BYTES } from '../extract/index.ts';
export type { ContentFinding, ContentCheckOptions, ContentSource, ContentRule, ContentSeverity } from '../extract/index.ts';
export { SpamCheckUnavailableError } from './spam-check.ts';
export type { SpamCheck, SpamRule } from '../wire/spam-check.ts';
export type { TestDns, DnsRecordSet, MxRecord } from './message/test-dns.ts';
export type { CompatibilityReport, ClientCompatibility, CompatibilityScore, FeatureUse, EmailClientNames } from './message/compatibility.ts';
export { applyClientProfile, CLIENT_PROFILE_NOTE } from './client-profile.ts';
export type { ClientProfileResult, ProfileRemoval } from './client-profile.ts';
export type { DynamicPart, ImageMode } from './render-html.ts';
export { FaultsResource, DeliveryFaultsUnsupportedError } from './faults.ts';
export { PhonesResource, PhonesUnsupportedError } from './phones.ts';
export type { CreatePhoneOptions } from './phones.ts';
export type { InboundSmsOptions, InboundSmsResult } from './inbound-sms.ts';
export type { SentSms } from '../wire/phones.ts';
export type { PhoneCountry } from '../wire/phones.ts';
export type { DeliveryFaultOptions } from './faults.ts';
export type { DeliveryFault, ClearedDeliveryFault } from '../wire/faults.ts';
export type {
  Address,
  Attachment,
  ConnectCode,
  CreateInboxRequest,
  CredentialKind,
  DeletedInbox,
  DeletedMessage,
  Domain,
  Envelope,
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
