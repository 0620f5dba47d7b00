/**
 * Route definitions of the phones extension: `POST /phones` makes an inbox
 * with a phone number. Marked `x-inboxkit-extension` in the OpenAPI document.
 *
 * @packageDocumentation
 */
import { createRoute } from '@hono/zod-openapi';
import { CreatedPhoneSchema, CreatePhoneRequestSchema, SendSmsRequestSchema, SentSmsSchema } from '../../wire/phones.ts';
import { errorResponses, okResponse, security } from '../http/openapi.ts';

/** `POST /phones` (inboxkit extension) */
export const createPhoneRoute = createRoute({
  method: 'post',
  path: '/phones',
  operationId: 'createPhone',
  tags: ['Phones'],
  summary: 'Create a phone: an inbox with a phone number that receives SMS (inboxkit extension)',
  description:
    'Not part of the Disposable Inbox API specification: servers without it answer 404. ' +
    'The phone is an inbox whose local part is its E.164 number (on the default domain): its SMS are messages of that inbox, read, streamed and deleted as any. ' +
    'Numbers come from ranges kept for fiction (US and CA 555-0100..0199 in real area codes, ACMA\'s 30 fictional mobiles, ARCEP\'s 06 39 98 xx xx) and are unique among active phones. ' +
    'SMS arrive through the provider APIs the service imitates (Twilio Messaging and Verify, AWS SNS, Vonage SMS and Verify) or `POST /sms`.',
  'x-inboxkit-extension': true,
  security: security.optional,
  request: { body: { required: false, description: 'The country of the number; may be empty', content: { 'application/json': { schema: CreatePhoneRequestSchema } } } },
  responses: { ...okResponse(CreatedPhoneSchema, 'The phone, with its inbox token (shown only here)'), ...errorResponses(400, 403, 413) },
});

/** `POST /sms` (inboxkit extension) */
export const sendSmsRoute = createRoute({
  method: 'post',
  path: '/sms',
  operationId: 'sendSms',
  tags: ['Phones'],
  summary: 'Text a phone: the plain SMS intake for apps with a sender of their own (inboxkit extension)',
  description:
    'Not part of the Disposable Inbox API specification: servers without it answer 404. ' +
    'Stores the text as the next message of the active phone of `to` (its stream announces it), as the provider APIs under `/sms/` do. ' +
    'A service bound to loopback takes it from anyone; a shared one needs an API key (or the phone\'s inbox token) and texts only the caller\'s own phones. ' +
    'The phone\'s SMS fault applies: `invalid` is 400 `validation_error`, `unsubscribed` 403 `recipient_opted_out`, `undeliverable` 200 with status `undelivered`, a delay 200 with status `queued`.',
  'x-inboxkit-extension': true,
  security: security.optional,
  request: { body: { required: true, description: 'The text and its phone', content: { 'application/json': { schema: SendSmsRequestSchema } } } },
  responses: { ...okResponse(SentSmsSchema, 'The SMS: stored, queued behind a delay, or accepted and undelivered (the phone\'s fault)'), ...errorResponses(400, 403, 404, 413) },
});
