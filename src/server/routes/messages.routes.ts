/**
 * The message endpoints (route definitions; the behaviour is in
 * `messages.handlers.ts`).
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import { DeletedMessageSchema, MessagePageSchema, MessageSchema, UpdateMessageRequestSchema } from '../../wire/schemas.ts';
import { SpamCheckSchema } from '../../wire/spam-check.ts';
import { AuthenticationCheckRequestSchema, AuthenticationCheckSchema } from '../../wire/authentication-check.ts';
import { downloadHeaders, errorResponses, jsonBody, okResponse, security as securityOf } from '../http/openapi.ts';
import type { LinkDoc } from '../http/openapi.ts';
import { InboxIdParams, MessageIdParams, PageQuerySchema, idParam } from '../http/params.ts';

const security = [...securityOf.required];

/** Links from an answer that names a message to what can be done with it. */
function messageLinks(id: string, which: string): Record<string, LinkDoc> {
  return {
    getMessage: { operationId: 'getMessage', parameters: { id }, description: `Read ${which}` },
    getRawMessage: { operationId: 'getRawMessage', parameters: { id }, description: `The raw source of ${which}` },
    deleteMessage: { operationId: 'deleteMessage', parameters: { id }, description: `Delete ${which}` },
  };
}

/** `GET /inboxes/{id}/messages` */
export const listMessagesRoute = createRoute({
  method: 'get',
  path: '/inboxes/{id}/messages',
  operationId: 'listMessages',
  tags: ['Messages'],
  summary: 'List the messages of an inbox, newest first',
  security,
  request: {
    params: InboxIdParams,
    query: PageQuerySchema.extend({
      q: z.string().max(200).optional().meta({
        description:
          'inboxkit extension: only messages whose subject, sender, recipients or text contain this text (ASCII case-insensitive). Servers that do not know it ignore it. The cursor of a filtered list is valid only with the same `q`.',
        'x-inboxkit-extension': true,
      }),
    }),
  },
  responses: {
    ...okResponse(MessagePageSchema, 'A page of message summaries, newest first', {
      ...messageLinks('$response.body#/data/items/0/id', 'the newest message of the page'),
      nextPage: { operationId: 'listMessages', parameters: { id: '$request.path.id', cursor: '$response.body#/data/nextCursor' }, description: 'The next page (while `nextCursor` is not null)' },
    }),
    ...errorResponses(400, 404),
  },
});

/** `GET /messages/{id}` */
export const getMessageRoute = createRoute({
  method: 'get',
  path: '/messages/{id}',
  operationId: 'getMessage',
  tags: ['Messages'],
  summary: 'A whole message: headers, text, sanitized HTML, attachments',
  security,
  request: { params: MessageIdParams },
  responses: {
    ...okResponse(MessageSchema, 'The message, with sanitized HTML', {
      ...messageLinks('$response.body#/data/id', 'this message'),
      getAttachment: {
        operationId: 'getAttachment',
        parameters: { id: '$response.body#/data/id', attachmentId: '$response.body#/data/attachments/0/id' },
        description: 'Download the first attachment (when `attachments` is not empty)',
      },
    }),
    ...errorResponses(404),
  },
});

/** `DELETE /messages/{id}` */
export const deleteMessageRoute = createRoute({
  method: 'delete',
  path: '/messages/{id}',
  operationId: 'deleteMessage',
  tags: ['Messages'],
  summary: 'Delete a message',
  security,
  request: { params: MessageIdParams },
  responses: {
    ...okResponse(DeletedMessageSchema, 'Deleted'),
    ...errorResponses(404),
  },
});

/** `PATCH /messages/{id}` (an inboxkit extension) */
export const updateMessageRoute = createRoute({
  method: 'patch',
  path: '/messages/{id}',
  operationId: 'updateMessage',
  tags: ['Messages'],
  summary: 'Mark a message read or unread (inboxkit extension)',
  description: 'Sets `seen`, the read state IMAP and POP3 clients see as \\Seen (docs/imap-pop3.md).',
  'x-inboxkit-extension': true,
  security,
  request: { params: MessageIdParams, ...jsonBody(UpdateMessageRequestSchema, 'The read state to set') },
  responses: {
    ...okResponse(MessageSchema, 'The message, with its new read state'),
    ...errorResponses(400, 404, 413),
  },
});

/** `GET /messages/{id}/attachments/{attachmentId}` */
export const getAttachmentRoute = createRoute({
  method: 'get',
  path: '/messages/{id}/attachments/{attachmentId}',
  operationId: 'getAttachment',
  tags: ['Messages'],
  summary: 'Download an attachment (raw bytes)',
  security,
  request: {
    params: z.object({
      id: idParam('id', 'The message id'),
      attachmentId: idParam('attachmentId', 'The attachment id'),
    }),
  },
  responses: {
    200: {
      description:
        "The attachment's bytes. `Content-Type` is the attachment's own type as the message declared it (its `contentType`, e.g. `image/png`; `application/octet-stream` when it declared none), " +
        "so the media type here is `*/*`. With `Content-Length`, `Content-Disposition: attachment; filename*=UTF-8''…` and `X-Content-Type-Options: nosniff`.",
      headers: downloadHeaders('attachment'),
      content: { '*/*': { schema: z.string().meta({ format: 'binary', description: 'The raw bytes of the attachment' }) } },
    },
    ...errorResponses(404),
  },
});

/** `GET /messages/{id}/raw` (an inboxkit extension) */
export const getRawRoute = createRoute({
  method: 'get',
  path: '/messages/{id}/raw',
  operationId: 'getRawMessage',
  tags: ['Messages'],
  summary: 'The raw source of a message as received (inboxkit extension)',
  description: 'Not part of the Disposable Inbox API specification: the local service offers it for test reports.',
  'x-inboxkit-extension': true,
  security,
  request: { params: MessageIdParams },
  responses: {
    200: { description: 'The message source (RFC 5322), shown `inline`', headers: downloadHeaders('inline'), content: { 'message/rfc822': { schema: z.string().meta({ format: 'binary' }) } } },
    ...errorResponses(404),
  },
});

/** `POST /messages/{id}/spam-check` (an inboxkit extension) */
export const spamCheckRoute = createRoute({
  method: 'post',
  path: '/messages/{id}/spam-check',
  operationId: 'checkMessageSpam',
  tags: ['Messages'],
  summary: 'Score the message with the configured spam scanner (inboxkit extension)',
  description:
    'Not part of the Disposable Inbox API specification. Sends the raw message to the spam scanner the service was started with (`--spam-check`: SpamAssassin\'s spamd or Rspamd) and answers its score and every matched rule. ' +
    'Rules that fire only because the mail came straight from a local app (loopback, no relays, no reverse DNS, trusted network, no DNS) are marked `localOnly` and left out of `score`. ' +
    'Nothing is stored. 400 `spam_check_unavailable` when the service has no scanner (like `forwarding_unavailable` without a relay); 502 `spam_check_failed` when the scanner is down, slow (the timeout is `--spam-check-timeout`) or fails; 429 `limit_reached` (with `Retry-After`) while 16 checks are running on the node, or 8 of the caller\'s own (its credential; a guest\'s client address).',
  'x-inboxkit-extension': true,
  security,
  request: { params: MessageIdParams },
  responses: {
    ...okResponse(SpamCheckSchema, 'The score and the matched rules'),
    ...errorResponses(400, 404, 502),
  },
});

/** `POST /messages/{id}/authentication` (an inboxkit extension) */
export const authenticationCheckRoute = createRoute({
  method: 'post',
  path: '/messages/{id}/authentication',
  operationId: 'checkMessageAuthentication',
  tags: ['Messages'],
  summary: 'Verify DKIM, SPF, DMARC and ARC against a test DNS (inboxkit extension)',
  description:
    'Not part of the Disposable Inbox API specification. Verifies the stored raw message with mailauth against the records of the body\'s `dns` map only: a name the map lacks does not exist, and nothing is looked up on the network. ' +
    'SPF uses the envelope recorded at intake (client address, HELO, `MAIL FROM`) unless the body overrides it. Nothing is stored. ' +
    '400 `validation_error` for a malformed map (at most 200 names); 400 `authentication_unavailable` when the optional mailauth package is not installed (`npm install mailauth`); 400 `authentication_failed` when the check takes longer than 10 s; 429 `limit_reached` (with `Retry-After`) while 8 checks are running on the node, or 4 of the caller\'s own (its credential; a guest\'s client address).',
  'x-inboxkit-extension': true,
  security,
  request: {
    params: MessageIdParams,
    body: { required: true, content: { 'application/json': { schema: AuthenticationCheckRequestSchema } } },
  },
  responses: {
    ...okResponse(AuthenticationCheckSchema, 'Each check\'s result and, when it did not pass, the reason and what to fix'),
    ...errorResponses(400, 404, 413),
  },
});
