/**
 * Lenient variants of the shared wire schemas, for parsing what a server sends.
 *
 * A hosted service may add fields or leave out ones it considers optional. These
 * schemas keep unknown fields (loose objects), fill fields that can be missing with
 * a neutral value (`null`, `[]`, `''`, `0`, `false`) and keep ids required. Their
 * output is assignable to the wire types (checked below), so callers see the
 * contract's types.
 */
import { z } from 'zod';
import {
  AddressSchema,
  AttachmentSchema,
  ConnectCodeSchema,
  DeletedInboxSchema,
  DeletedMessageSchema,
  DomainSchema,
  EnvelopeSchema,
  EntitlementsSchema,
  InboxSchema,
  MeSchema,
  MessageSchema,
  MessageSummarySchema,
  PlanSchema,
  SignedOutSchema,
  StreamInboxGoneSchema,
  StreamAccessRevokedSchema,
  StreamReadySchema,
  TokenSchema,
} from '../../wire/schemas.ts';
import type {
  Address,
  Attachment,
  ConnectCode,
  DeletedInbox,
  DeletedMessage,
  Domain,
  Inbox,
  Me,
  Message,
  MessageSummary,
  SignedOut,
  StreamInboxGone,
  StreamReady,
  Token,
} from '../../wire/schemas.ts';

/** `schema`, or `fallback` when the field is missing or null. */
function or<S extends z.ZodType>(schema: S, fallback: z.output<S>) {
  return schema.nullish().transform((value): z.output<S> => (value ?? fallback) as z.output<S>);
}

const LooseAddress = AddressSchema.extend({ name: or(z.string(), '') }).loose();
const addresses = or(z.array(LooseAddress), []);

/** A domain; `isDefault` false when missing. */
export const LooseDomain = DomainSchema.extend({ isDefault: or(z.boolean(), false) }).loose();

/** An inbox; `localPart` and `domain` derived from `address` when missing; `token` kept when present. */
export const LooseInbox = InboxSchema.extend({
  localPart: z.string().optional(),
  domainId: or(z.string(), ''),
  domain: z.string().optional(),
  label: or(z.string().nullable(), null),
  forwardTo: or(z.string().nullable(), null),
  createdAt: or(z.string(), ''),
  expiresAt: or(z.string().nullable(), null),
  messageCount: or(z.number().int().nonnegative(), 0),
  token: z.string().optional(),
})
  .loose()
  .transform((inbox) => {
    const at = inbox.address.lastIndexOf('@');
    return {
      ...inbox,
      localPart: inbox.localPart ?? (at >= 0 ? inbox.address.slice(0, at) : inbox.address),
      domain: inbox.domain ?? (at >= 0 ? inbox.address.slice(at + 1) : ''),
    };
  });

const summaryFields = {
  from: or(LooseAddress.nullable(), null),
  to: addresses,
  cc: addresses,
  subject: or(z.string(), ''),
  preview: or(z.string(), ''),
  receivedAt: or(z.string(), ''),
  size: or(z.number().int().nonnegative(), 0),
  hasAttachments: or(z.boolean(), false),
};

/** A message summary; needs `id`, `inboxId` and `seq`. */
/** A whole message; `hasAttachments` also true when attachments are listed. */
/** The current user; needs `authenticated`, a known `credential` and the plan. */
export const LooseMessageSummary = MessageSummarySchema.extend(summaryFields).loose();

/** An attachment's metadata; needs `id`. */
const LooseAttachment = AttachmentSchema.extend({
  filename: or(z.string(), 'attachment'),
  contentType: or(z.string(), 'application/octet-stream'),
  size: or(z.number().int().nonnegative(), 0),
  contentId: or(z.string().nullable(), null),
  inline: or(z.boolean(), false),
}).loose();

export const LooseMessage = MessageSchema.extend({
  ...summaryFields,
  replyTo: addresses,
  headers: or(z.record(z.string(), z.string()), {}),
  text: or(z.string().nullable(), null),
  html: or(z.string().nullable(), null),
  attachments: or(z.array(LooseAttachment), []),
  // An extension: a server without it sends none, a malformed one is dropped rather than failing the message.
  envelope: EnvelopeSchema.nullish().catch(null).transform((value) => value ?? null),
})
  .loose()
  .transform((message) => ({ ...message, hasAttachments: message.hasAttachments || message.attachments.length > 0 }));

const LoosePlan = PlanSchema.extend({
  name: or(z.string(), ''),
  entitlements: EntitlementsSchema.loose(),
}).loose();

export const LooseMe = MeSchema.extend({
  user: or(z.object({ id: z.string(), email: or(z.string(), '') }).loose().nullable(), null),
  plan: LoosePlan,
}).loose();

/** Answer of deleting an inbox. */
export const LooseDeletedInbox = DeletedInboxSchema.extend({
  deleted: or(z.literal(true), true),
  messagesDeleted: or(z.number().int().nonnegative(), 0),
}).loose();

/** Answer of deleting a message. */
export const LooseDeletedMessage = DeletedMessageSchema.extend({ deleted: or(z.literal(true), true) }).loose();
/** Answer of signing out. */
export const LooseSignedOut = SignedOutSchema.extend({ signedOut: or(z.literal(true), true) }).loose();
/** A connect code. */
export const LooseConnectCode = ConnectCodeSchema.extend({ expiresAt: or(z.string(), '') }).loose();
/** A session token; the token type is matched case-insensitively. */
export const LooseToken = TokenSchema.extend({
  tokenType: z
    .string()
    .refine((type) => type.toLowerCase() === 'bearer', 'a Bearer token')
    .nullish()
    .transform(() => 'Bearer' as const),
  expiresIn: or(z.number().nonnegative(), 0),
  expiresAt: or(z.string(), ''),
}).loose();
/** Data of the stream's `ready` event. */
export const LooseStreamReady = StreamReadySchema.extend({ lastSeq: or(z.number().int().nonnegative(), 0) }).loose();
/** Data of the stream's `inbox.deleted` / `inbox.expired` events. */
export const LooseStreamInboxGone = StreamInboxGoneSchema.loose();

/** `access.revoked`: the credential that opened the stream no longer grants the inbox. */
export const LooseStreamAccessRevoked = StreamAccessRevokedSchema.extend({ reason: z.string() }).loose();

// Compile-time proof that the lenient outputs can stand for the wire types.
type Assignable<From, To> = From extends To ? true : never;
const _checks: [
  Assignable<z.output<typeof LooseAddress>, Address>,
  Assignable<z.output<typeof LooseDomain>, Domain>,
  Assignable<z.output<typeof LooseInbox>, Inbox>,
  Assignable<z.output<typeof LooseMessageSummary>, MessageSummary>,
  Assignable<z.output<typeof LooseAttachment>, Attachment>,
  Assignable<z.output<typeof LooseMessage>, Message>,
  Assignable<z.output<typeof LooseDeletedInbox>, DeletedInbox>,
  Assignable<z.output<typeof LooseDeletedMessage>, DeletedMessage>,
  Assignable<z.output<typeof LooseSignedOut>, SignedOut>,
  Assignable<z.output<typeof LooseConnectCode>, ConnectCode>,
  Assignable<z.output<typeof LooseToken>, Token>,
  Assignable<z.output<typeof LooseStreamReady>, StreamReady>,
  Assignable<z.output<typeof LooseStreamInboxGone>, StreamInboxGone>,
  Assignable<z.output<typeof LooseMe>, Me>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true];
void _checks;
