/**
 * Wire schemas of the delivery-fault extension (`/inboxes/{id}/delivery-fault`):
 * what a test sends to make the local service refuse or delay mail for one
 * inbox, and what the service answers. Not part of the Disposable Inbox API
 * specification; servers that do not offer it answer 404 or 405.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { TimestampSchema } from './schemas.ts';

/** Longest delay a fault may put before a reply: 10 minutes, RFC 5321's own DATA-termination timeout. */
export const MAX_FAULT_DELAY_MS = 600_000;

/** An RFC 3463 enhanced status code (`class.subject.detail`), class 4 or 5. */
const EnhancedStatus = z
  .string()
  .regex(/^[45]\.\d{1,3}\.\d{1,3}$/, 'must be an RFC 3463 enhanced status code such as "4.7.1" or "5.7.1" (class 4 or 5)')
  .meta({ example: '4.7.1' });

/** `PUT /inboxes/{id}/delivery-fault`: what to do with the next deliveries to the inbox. */
export const DeliveryFaultRequestSchema = z
  .strictObject({
    kind: z
      .enum(['greylist'])
      .optional()
      .meta({
        description:
          'A named fault: `greylist` refuses the next delivery attempt with 451 4.7.1 (greylisted) and accepts the ones after it, as a greylisting receiver does, so that a test proves the sending MTA retries. Its code, status, message and count may still be given; they default to 451, 4.7.1, a greylisting text and 1.',
        example: 'greylist',
      }),
    code: z
      .number()
      .int()
      .min(400, 'must be an SMTP reply code from 400 to 599 (4xx: temporary, the sender retries; 5xx: permanent)')
      .max(599, 'must be an SMTP reply code from 400 to 599 (4xx: temporary, the sender retries; 5xx: permanent)')
      .refine((code) => code !== 421, '421 closes the whole SMTP connection, which would lose the other recipients\' copies of the message; use 450 or 451 for a temporary refusal')
      .optional()
      .meta({
        description: 'SMTP reply code to refuse the recipient with at RCPT TO: 4xx temporary, 5xx permanent, except 421 (it closes the connection, so the other recipients would lose their copy). Omit for a delay only.',
        example: 451,
        not: { const: 421 },
      }),
    enhancedStatus: EnhancedStatus.optional().meta({
      description: 'RFC 3463 enhanced status code of the reply; its class must match the code\'s. Default: one chosen for the code (451 → 4.3.0, 550 → 5.7.1 …).',
    }),
    message: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\r\n]*$/, 'must be one line')
      .optional()
      .meta({ description: 'Text of the reply after the codes. Default: says the fault was requested for this inbox.' }),
    count: z
      .number()
      .int()
      .min(1, 'must be at least 1 (leave it out to affect every delivery until the fault is cleared)')
      .optional()
      .meta({ description: 'How many delivery attempts the fault affects; then mail is accepted again. Default: every attempt until cleared or the inbox is deleted.', example: 2 }),
    delayMs: z
      .number()
      .int()
      .min(0, 'must be 0 or more milliseconds')
      .max(MAX_FAULT_DELAY_MS, `must be at most ${MAX_FAULT_DELAY_MS} ms`)
      .optional()
      .meta({
        description:
          'Wait before replying, in ms: before the refusal when there is a code; without one, before this inbox\'s copy is stored (the other recipients\' copies are stored at once, and the 250 comes once every copy is).',
        example: 2000,
      }),
  })
  .refine((fault) => fault.kind !== undefined || fault.code !== undefined || (fault.delayMs ?? 0) > 0, {
    message: 'give a reply code (code: 451 or 550 …) or a delay (delayMs > 0), or both',
    path: ['code'],
  })
  .refine((fault) => fault.enhancedStatus === undefined || (fault.code !== undefined && fault.enhancedStatus[0] === String(fault.code)[0]), {
    message: 'must have the class of the reply code (4.x.x with a 4xx code, 5.x.x with a 5xx code), and needs a code',
    path: ['enhancedStatus'],
  })
  .meta({
    id: 'DeliveryFaultRequest',
    description: 'A fault needs a kind, a reply code, or a delay of at least 1 ms; `enhancedStatus` needs a `code` of its class.',
    anyOf: [{ required: ['kind'] }, { required: ['code'] }, { required: ['delayMs'], properties: { delayMs: { minimum: 1 } } }],
    dependentRequired: { enhancedStatus: ['code'] },
  });

/** A delivery fault in force for an inbox. */
export const DeliveryFaultSchema = z
  .object({
    inboxId: z.string(),
    code: z.number().int().nullable().meta({ description: 'SMTP reply code of the refusal, or null for a delay only' }),
    enhancedStatus: z.string().nullable().meta({ description: 'RFC 3463 enhanced status code of the refusal, or null' }),
    message: z.string().nullable().meta({ description: 'Text of the refusal, or null' }),
    remaining: z.number().int().nullable().meta({ description: 'Delivery attempts still affected; null: every one until cleared' }),
    delayMs: z.number().int().meta({ description: 'Wait before the reply, in ms' }),
    createdAt: TimestampSchema,
  })
  .meta({ id: 'DeliveryFault' });

/** The answer of `GET /inboxes/{id}/delivery-fault`: the fault, or null when mail is accepted normally. */
export const DeliveryFaultStateSchema = z
  // A union, not `.nullable()`: the generator writes a nullable reference as an allOf that cannot be null.
  .object({ fault: z.union([DeliveryFaultSchema, z.null()]).meta({ description: 'The fault in force, or null when mail is accepted normally' }) })
  .meta({ id: 'DeliveryFaultState' });

/** The answer of `DELETE /inboxes/{id}/delivery-fault`. */
export const ClearedDeliveryFaultSchema = z
  .object({ inboxId: z.string(), cleared: z.boolean().meta({ description: 'Whether a fault was in force' }) })
  .meta({ id: 'ClearedDeliveryFault' });

/** What `PUT /inboxes/{id}/delivery-fault` accepts. */
export type DeliveryFaultRequest = z.infer<typeof DeliveryFaultRequestSchema>;
/** A delivery fault in force for an inbox. */
export type DeliveryFault = z.infer<typeof DeliveryFaultSchema>;
/** A cleared delivery fault. */
export type ClearedDeliveryFault = z.infer<typeof ClearedDeliveryFaultSchema>;
