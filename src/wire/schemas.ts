/**
 * Wire schemas of the Disposable Inbox API v1.
 *
 * One zod schema per shape the server sends or accepts. The server uses them to
 * validate requests and to generate its OpenAPI 3.1 document (component names
 * come from `.meta({ id })`); the client parses responses with them. This module
 * depends on zod only, so the client can import it without pulling in Hono.
 *
 * @packageDocumentation
 */
import { z } from 'zod';

/** ISO 8601 timestamp in UTC, e.g. `2026-01-01T00:00:00.000Z`. */
export const TimestampSchema = z
  .string()
  .meta({ description: 'ISO 8601 timestamp in UTC', example: '2026-01-01T00:00:00.000Z' });

/** A mail domain the service accepts mail for. */
export const DomainSchema = z
  .object({
    id: z.string(),
    domain: z.string(),
    isDefault: z.boolean(),
  })
  .meta({ id: 'Domain' });

/** A temporary inbox. */
export const InboxSchema = z
  .object({
    id: z.string(),
    address: z.string(),
    localPart: z.string(),
    domainId: z.string(),
    domain: z.string(),
    label: z.string().nullable(),
    forwardTo: z.string().nullable(),
    createdAt: TimestampSchema,
    expiresAt: TimestampSchema.nullable().meta({ description: 'null when the inbox never expires' }),
    messageCount: z.number().int().nonnegative(),
    phoneNumber: z.string().optional().meta({ description: 'inboxkit extension: present on a phone (`POST /phones`), its E.164 number, equal to `localPart`' }),
  })
  .meta({ id: 'Inbox' });

/** The answer of `POST /inboxes`: the inbox plus its inbox token, shown only once. */
export const CreatedInboxSchema = InboxSchema.extend({
  token: z.string().meta({ description: 'Inbox token (send as X-Inbox-Token). Returned only here.' }),
}).meta({ id: 'CreatedInbox' });

/** A mailbox: address and display name (empty string when the mail had none). */
export const AddressSchema = z
  .object({
    address: z.string(),
    name: z.string(),
  })
  .meta({ id: 'Address' });

/** A message as listed and as pushed by the event stream. */
export const MessageSummarySchema = z
  .object({
    id: z.string(),
    inboxId: z.string(),
    seq: z.number().int().positive().meta({ description: 'Position in the inbox, 1, 2, 3 … in arrival order; the stream event id' }),
    // A union, not `.nullable()`: the Address component itself must stay non-null for `to` and `cc`.
    from: z.union([AddressSchema, z.null()]).meta({ description: 'The From mailbox, or null when the mail had none' }),
    to: z.array(AddressSchema),
    cc: z.array(AddressSchema),
    subject: z.string(),
    preview: z.string().meta({ description: 'First 200 characters of the text body' }),
    receivedAt: TimestampSchema,
    size: z.number().int().nonnegative().meta({ description: 'Size of the raw message in bytes' }),
    hasAttachments: z.boolean(),
    seen: z.boolean().optional().meta({
      description:
        "inboxkit extension: whether the message was read. IMAP's \\Seen flag: set by an IMAP FETCH of the body or STORE, a POP3 RETR, or PATCH /messages/{id}. Absent on servers without it.",
      'x-inboxkit-extension': true,
    }),
  })
  .meta({ id: 'MessageSummary' });

/** An attachment's metadata; the bytes come from the download endpoint. */
export const AttachmentSchema = z
  .object({
    id: z.string(),
    filename: z.string(),
    contentType: z.string(),
    size: z.number().int().nonnegative(),
    contentId: z.string().nullable(),
    inline: z.boolean(),
  })
  .meta({ id: 'Attachment' });

/** The SMTP envelope a message arrived with (an inboxkit extension of `Message`). */
export const EnvelopeSchema = z
  .object({
    mailFrom: z.string().meta({ description: "MAIL FROM address; '' for the null sender (<>)" }),
    rcptTo: z.array(z.string()).meta({ description: "The RCPT TO addresses delivered to this message's inbox (never another inbox's recipients)" }),
    clientAddress: z.string().nullable().meta({ description: "The SMTP client's IP address" }),
    helo: z.string().nullable().meta({ description: 'The name the client gave in HELO/EHLO' }),
  })
  .meta({ id: 'Envelope' });

/** A whole message: the summary plus bodies, headers and attachments. */
export const MessageSchema = MessageSummarySchema.extend({
  replyTo: z.array(AddressSchema),
  headers: z
    .record(z.string(), z.string())
    .meta({ description: 'Original header names, lower-cased, to values; a repeated header has its values joined by a line feed' }),
  text: z.string().nullable(),
  html: z.string().nullable().meta({ description: 'Sanitized HTML body' }),
  attachments: z.array(AttachmentSchema),
  envelope: z
    .union([EnvelopeSchema, z.null()])
    .optional()
    .meta({
      description:
        'inboxkit extension: the SMTP envelope recorded at intake (MAIL FROM, RCPT TO, client address, HELO); null when none was recorded. Servers without the extension leave it out.',
      'x-inboxkit-extension': true,
    }),
}).meta({ id: 'Message' });

/** What a plan allows. */
export const EntitlementsSchema = z
  .object({
    apiKeys: z.boolean(),
    customAddresses: z.boolean(),
    forwarding: z.boolean(),
    maxActiveInboxes: z.number().int().nonnegative().nullable(),
    inboxTtlSeconds: z.number().int().nonnegative().nullable(),
    maxMessageBytes: z.number().int().nonnegative(),
    requestsPerMinute: z.number().int().nonnegative().nullable(),
  })
  .meta({ id: 'Entitlements' });

/** A plan and its entitlements. */
export const PlanSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    entitlements: EntitlementsSchema,
  })
  .meta({ id: 'Plan' });

/**
 * The kinds of credential a request can carry. `operator` is an inboxkit
 * extension: the local service's operator token (`tmo_…`), printed once by
 * `inboxkit serve` on loopback, which sees every inbox.
 */
export const CredentialKindSchema = z.enum(['anonymous', 'inboxToken', 'apiKey', 'session', 'operator']).meta({ id: 'CredentialKind' });

/** The answer of `GET /me`. */
export const MeSchema = z
  .object({
    authenticated: z.boolean(),
    credential: CredentialKindSchema,
    user: z.object({ id: z.string(), email: z.string() }).nullable(),
    plan: PlanSchema,
  })
  .meta({ id: 'Me' });

/** Body of `POST /inboxes`. */
export const CreateInboxRequestSchema = z
  .object({
    localPart: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9._+-]*[A-Za-z0-9_+-])?$/, 'letters, digits and . _ + - (not at the start or end)')
      .optional(),
    domainId: z.string().min(1).optional(),
    label: z.string().max(200).optional(),
  })
  .meta({ id: 'CreateInboxRequest' });

/**
 * The addresses `forwardTo` accepts: a dot-atom local part (RFC 5322 atext
 * characters, dots between them) `@` a host name of one or more labels
 * (`a@localhost` included). Not accepted: quoted local parts (`"q"@example.org`)
 * and address literals (`user@[127.0.0.1]`), which relays handle unevenly.
 * The OpenAPI document publishes this pattern, so clients check what the server checks.
 */
export const FORWARD_ADDRESS_PATTERN =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Body of `PATCH /inboxes/{id}`: at least one of `label` and `forwardTo`; `null` clears. */
export const UpdateInboxRequestSchema = z
  .object({
    label: z.string().max(200).nullable().optional(),
    forwardTo: z
      .string()
      .max(254)
      .regex(FORWARD_ADDRESS_PATTERN, 'a mailbox like name@example.com or name@localhost (no quoted local part, no [address literal])')
      .nullable()
      .optional()
      .meta({ description: 'Where to forward new mail; `null` stops forwarding. A dot-atom local part @ a host name; quoted local parts and address literals are refused' }),
  })
  .refine((body) => body.label !== undefined || body.forwardTo !== undefined, {
    message: 'give at least one of label, forwardTo',
  })
  // What the refinement checks, said in JSON Schema (zod cannot derive it from a refinement).
  .meta({ id: 'UpdateInboxRequest', minProperties: 1, anyOf: [{ required: ['label'] }, { required: ['forwardTo'] }] });

/** The answer of `DELETE /inboxes/{id}`. */
export const DeletedInboxSchema = z
  .object({ id: z.string(), deleted: z.literal(true), messagesDeleted: z.number().int().nonnegative() })
  .meta({ id: 'DeletedInbox' });

/** The answer of `DELETE /messages/{id}`. */
export const DeletedMessageSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedMessage' });

/** The body of `PATCH /messages/{id}` (an inboxkit extension): mark a message read or unread. */
export const UpdateMessageRequestSchema = z
  .object({ seen: z.boolean().meta({ description: "Whether the message was read: IMAP and POP3 clients see it as \\Seen" }) })
  .strict()
  .meta({ id: 'UpdateMessageRequest' });

/** The answer of `DELETE /me/session`. */
export const SignedOutSchema = z.object({ signedOut: z.literal(true) }).meta({ id: 'SignedOut' });

/** Schemes a redirect URI may not use: they run script or read local data where the client lands. */
const UNSAFE_REDIRECT_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'blob:', 'file:']);

/** Whether a connect code's redirect URI is an absolute URI with a scheme that cannot run script. */
function isSafeRedirectUri(value: string): boolean {
  if (!URL.canParse(value)) return false;
  return !UNSAFE_REDIRECT_SCHEMES.has(new URL(value).protocol.toLowerCase());
}

/** Body of `POST /extension/codes` (inboxkit's own way to issue connect codes). */
export const ConnectCodeRequestSchema = z
  .object({
    codeChallenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'a base64url SHA-256 digest (43 characters)'),
    codeChallengeMethod: z.literal('S256'),
    redirectUri: z
      .string()
      .min(1)
      .max(2000)
      .refine(isSafeRedirectUri, 'an absolute URI whose scheme is not javascript:, vbscript:, data:, blob: or file: (e.g. https://app.example/callback or chrome-extension://id/cb.html)')
      .meta({ description: 'Where the client receives the code: an absolute URI; `javascript:`, `vbscript:`, `data:`, `blob:` and `file:` are refused.' }),
  })
  .meta({ id: 'ConnectCodeRequest' });

/** The answer of `POST /extension/codes`. */
export const ConnectCodeSchema = z.object({ code: z.string(), expiresAt: TimestampSchema }).meta({ id: 'ConnectCode' });

/** Body of `POST /extension/token`. */
export const TokenRequestSchema = z
  .object({
    code: z.string().min(1),
    codeVerifier: z.string(),
    redirectUri: z.string().min(1),
  })
  .meta({ id: 'TokenRequest' });

/** The answer of `POST /extension/token`. */
export const TokenSchema = z
  .object({
    accessToken: z.string(),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int().positive(),
    expiresAt: TimestampSchema,
  })
  .meta({ id: 'Token' });

/** A page of a list: the items and the cursor of the next page (`null` on the last). */
export function pageSchema<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() }).meta({ id });
}

/** A page of inboxes. */
export const InboxPageSchema = pageSchema(InboxSchema, 'InboxPage');
/** A page of message summaries. */
export const MessagePageSchema = pageSchema(MessageSummarySchema, 'MessagePage');

/** Wraps a payload in the success envelope `{ data }`. */
export function envelope<T extends z.ZodType>(payload: T) {
  return z.object({ data: payload });
}

/** Every error code of the contract. */
export const ErrorCodeSchema = z
  .enum([
    'invalid_json',
    'validation_error',
    'invalid_grant',
    'forwarding_unavailable',
    'not_a_session',
    'unauthorized',
    'plan_required',
    'host_not_allowed',
    'inbox_not_found',
    'message_not_found',
    'attachment_not_found',
    'domain_not_found',
    'not_found',
    'method_not_allowed',
    'address_taken',
    'payload_too_large',
    'rate_limited',
    'limit_reached',
    'internal_error',
    'service_unavailable',
    'spam_check_unavailable',
    'spam_check_failed',
    'authentication_unavailable',
    'authentication_failed',
    'recipient_opted_out',
  ])
  .meta({ id: 'ErrorCode' });

/** The failure envelope `{ error: { code, message } }`. */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Machine-readable code; see ErrorCode for the known ones' }),
      message: z.string(),
      requestId: z.string().optional(),
    }),
  })
  .meta({ id: 'Error' });

/** Data of the stream's `ready` event. */
export const StreamReadySchema = z.object({ inboxId: z.string(), lastSeq: z.number().int().nonnegative() }).meta({ id: 'StreamReady' });

/** Data of the stream's `inbox.deleted` and `inbox.expired` events. */
export const StreamInboxGoneSchema = z.object({ inboxId: z.string() }).meta({ id: 'StreamInboxGone' });

/**
 * Why a stream's access ended while its inbox still exists: the session was
 * signed out (`DELETE /me/session`), revoked (its connect code was replayed) or
 * expired; the API key was revoked.
 */
export const AccessRevokedReasonSchema = z
  .enum(['session_signed_out', 'session_revoked', 'session_expired', 'api_key_revoked'])
  .meta({ id: 'AccessRevokedReason' });

/** Data of the stream's `access.revoked` event, sent just before the server closes the stream. */
export const StreamAccessRevokedSchema = z
  .object({ inboxId: z.string(), reason: AccessRevokedReasonSchema })
  .meta({ id: 'StreamAccessRevoked' });

/** The answer of `DELETE /me/api-key` (an inboxkit extension). */
export const RevokedApiKeySchema = z.object({ revoked: z.literal(true) }).meta({ id: 'RevokedApiKey' });

/** The answer of `GET /healthz`. */
export const HealthSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });

export type Domain = z.infer<typeof DomainSchema>;
export type Inbox = z.infer<typeof InboxSchema>;
export type CreatedInbox = z.infer<typeof CreatedInboxSchema>;
export type Address = z.infer<typeof AddressSchema>;
export type MessageSummary = z.infer<typeof MessageSummarySchema>;
export type Attachment = z.infer<typeof AttachmentSchema>;
export type Message = z.infer<typeof MessageSchema>;
/** The SMTP envelope of a message (`message.envelope`). */
export type Envelope = z.infer<typeof EnvelopeSchema>;
export type Entitlements = z.infer<typeof EntitlementsSchema>;
export type Plan = z.infer<typeof PlanSchema>;
export type CredentialKind = z.infer<typeof CredentialKindSchema>;
export type Me = z.infer<typeof MeSchema>;
export type CreateInboxRequest = z.infer<typeof CreateInboxRequestSchema>;
export type UpdateInboxRequest = z.infer<typeof UpdateInboxRequestSchema>;
export type DeletedInbox = z.infer<typeof DeletedInboxSchema>;
export type DeletedMessage = z.infer<typeof DeletedMessageSchema>;
export type SignedOut = z.infer<typeof SignedOutSchema>;
export type ConnectCodeRequest = z.infer<typeof ConnectCodeRequestSchema>;
export type ConnectCode = z.infer<typeof ConnectCodeSchema>;
export type TokenRequest = z.infer<typeof TokenRequestSchema>;
export type Token = z.infer<typeof TokenSchema>;
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
export type StreamReady = z.infer<typeof StreamReadySchema>;
export type StreamInboxGone = z.infer<typeof StreamInboxGoneSchema>;
export type AccessRevokedReason = z.infer<typeof AccessRevokedReasonSchema>;
export type StreamAccessRevoked = z.infer<typeof StreamAccessRevokedSchema>;
/** A page of a list. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The path prefix of every endpoint. */
export const API_PREFIX = '/api/v1';
