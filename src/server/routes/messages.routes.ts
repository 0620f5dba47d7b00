/**
 * The message endpoints (route definitions; the behaviour is in
 * `messages.handlers.ts`).
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import { DeletedMessageSchema, MessagePageSchema, MessageSchema } from '../../wire/schemas.ts';
import { errorResponses, okResponse, security as securityOf } from '../http/openapi.ts';
import { InboxIdParams, MessageIdParams, PageQuerySchema, idParam } from '../http/params.ts';

const security = [...securityOf.required];


/** `GET /inboxes/{id}/messages` */
export const listMessagesRoute = createRoute({
  method: 'get',
  path: '/inboxes/{id}/messages',
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
    ...okResponse(MessagePageSchema, 'A page of message summaries, newest first'),
    ...errorResponses(400, 404),
  },
});

/** `GET /messages/{id}` */
export const getMessageRoute = createRoute({
  method: 'get',
  path: '/messages/{id}',
  tags: ['Messages'],
  summary: 'A whole message: headers, text, sanitized HTML, attachments',
  security,
  request: { params: MessageIdParams },
  responses: {
    ...okResponse(MessageSchema, 'The message, with sanitized HTML'),
    ...errorResponses(404),
  },
});

/** `DELETE /messages/{id}` */
export const deleteMessageRoute = createRoute({
  method: 'delete',
  path: '/messages/{id}',
  tags: ['Messages'],
  summary: 'Delete a message',
  security,
  request: { params: MessageIdParams },
  responses: {
    ...okResponse(DeletedMessageSchema, 'Deleted'),
    ...errorResponses(404),
  },
});

/** `GET /messages/{id}/attachments/{attachmentId}` */
export const getAttachmentRoute = createRoute({
  method: 'get',
  path: '/messages/{id}/attachments/{attachmentId}',
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
        "The attachment's bytes with its Content-Type, Content-Length, `Content-Disposition: attachment; filename*=UTF-8''…` and `X-Content-Type-Options: nosniff`",
      content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
    },
    ...errorResponses(404),
  },
});

/** `GET /messages/{id}/raw` (an inboxkit extension) */
export const getRawRoute = createRoute({
  method: 'get',
  path: '/messages/{id}/raw',
  tags: ['Messages'],
  summary: 'The raw source of a message as received (inboxkit extension)',
  description: 'Not part of the Disposable Inbox API specification: the local service offers it for test reports.',
  'x-inboxkit-extension': true,
  security,
  request: { params: MessageIdParams },
  responses: {
    200: { description: 'The message source (RFC 5322)', content: { 'message/rfc822': { schema: z.string().meta({ format: 'binary' }) } } },
    ...errorResponses(404),
  },
});
