/**
 * inboxkit: test email flows against a local or hosted Disposable Inbox API.
 * The main entry (`inboxkit`) is this typed client of the Disposable Inbox API
 * v1; see `inboxkit/playwright` and `inboxkit/server`.
 *
 * This list is the package's public surface, on purpose: a name exported by a
 * module of src/client or src/extract but not listed here is internal, and
 * every name here is documented (README.md or docs/*.md;
 * tests/unit/public-surface.spec.ts checks it). What the fixtures and MCP
 * share with the client lives under `internal/`, which no entry exports.
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
  EXTRACTION_BOUNDS,
  ExtractionError,
  LinkNotFoundError,
  AmbiguousLinkError,
  OtpNotFoundError,
} from '../extract/index.ts';
export type {
  ExtractedLink,
  ExtractedLinks,
  ExtractionBound,
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
// The analysis room (src/checks) is below the client: these are its public names, re-exported
// because `message.compatibility()`, `.contentChecks()`, `.authentication()`, `.checkLinks()` and
// the renders return or take them.
export { checkCompatibility } from '../checks/compatibility.ts';
export type { CheckedLink, LinkCheckContext, LinkCheckOptions, LinkCheckReport, LinkRequester, LinkResponse } from '../checks/link-check.ts';
export type { AuthenticationReport, DkimSignatureResult } from '../checks/authentication.ts';
export type { AuthenticationOptions, OriginalParts } from './message/received.ts';
export type { OriginalAttachment } from '../checks/original.ts';
export { checkContent } from '../checks/content-checks.ts';
export { CONTENT_RULES, GMAIL_CLIP_BYTES } from '../checks/content-rules.ts';
export type { ContentFinding, ContentCheckOptions, ContentSource } from '../checks/content-checks.ts';
export type { ContentRule, ContentRuleId, ContentSeverity } from '../checks/content-rules.ts';
export { SpamCheckUnavailableError } from './spam-check.ts';
export type { SpamCheck, SpamRule } from '../wire/spam-check.ts';
export type { TestDns, DnsRecordSet, MxRecord } from '../checks/test-dns.ts';
export type { CompatibilityReport, ClientCompatibility, CompatibilityScore, FeatureUse, EmailClientNames } from '../checks/compatibility.ts';
export { applyClientProfile, CLIENT_PROFILE_NOTE } from '../checks/client-profile.ts';
export type { ClientProfileResult, ProfileRemoval } from '../checks/client-profile.ts';
export type { DynamicPart, ImageMode } from '../checks/render-source.ts';
export { FaultsResource, DeliveryFaultsUnsupportedError } from './faults.ts';
export { PhonesResource, PhonesUnsupportedError } from './phones.ts';
export type { CreatePhoneOptions } from './phones.ts';
export type { InboundSmsOptions, InboundSmsResult } from './core/inbound-sms.ts';
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
