import { createRoute, z } from '@hono/zod-openapi';
import { DeletedMessageSchema, MessagePageSchema, MessageSchema } from '../../wire/schemas.ts';
import { errorResponses, okResponse, security as securityOf } from '../http/openapi.ts';

const security = [...securityOf.required];

const InboxIdParam = z.object({ id: z.string().min(1).meta({ param: { name: 'id', in: 'path' }, description: 'Inbox id' }) });
const MessageIdParam = z.object({ id: z.string().min(1).meta({ param: { name: 'id', in: 'path' }, description: 'Message id' }) });

/** `GET /inboxes/{id}/messages` */
export const listMessagesRoute = createRoute({
  method: 'get',
  path: '/inboxes/{id}/messages',
  tags: ['Messages'],
  summary: 'List the messages of an inbox, newest first',
  security,
  request: {
    params: InboxIdParam,
    query: z.object({
      cursor: z.string().min(1).optional().meta({ description: 'nextCursor of the previous page; omit for the first page' }),
      limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'Items per page, 1..100', example: 20 }),
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
  request: { params: MessageIdParam },
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
  request: { params: MessageIdParam },
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
      id: z.string().min(1).meta({ param: { name: 'id', in: 'path' }, description: 'Message id' }),
      attachmentId: z.string().min(1).meta({ param: { name: 'attachmentId', in: 'path' }, description: 'Attachment id' }),
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
  request: { params: MessageIdParam },
  responses: {
    200: { description: 'The message source (RFC 5322)', content: { 'message/rfc822': { schema: z.string().meta({ format: 'binary' }) } } },
    ...errorResponses(404),
  },
});
