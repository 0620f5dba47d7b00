/**
 * The event stream endpoint (route definition; the behaviour is in
 * `stream.handlers.ts`).
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import { COMMON_HEADERS, errorResponses, security as securityOf } from '../http/openapi.ts';
import { InboxIdParams } from '../http/params.ts';

const security = [...securityOf.required];

/** `GET /inboxes/{id}/stream` */
export const streamRoute = createRoute({
  method: 'get',
  path: '/inboxes/{id}/stream',
  operationId: 'streamInbox',
  tags: ['Messages'],
  summary: 'Live stream of an inbox (Server-Sent Events)',
  description: [
    'First line `retry: 2000`. With `Last-Event-ID` (header) or `lastEventId` (query) of N, every message with seq > N is sent first, oldest first.',
    'Each message is `event: message`, `id: <seq>`, `data: <MessageSummary JSON>`. Then `event: ready` with `{ inboxId, lastSeq }` (and `id: lastSeq`) once live;',
    'no message falls between replay and live. A `: ping` comment at least every 15 s. `event: inbox.deleted` or `event: inbox.expired` (data `{ inboxId }`, at the moment the inbox is deleted or its `expiresAt` passes), then the server closes the stream.',
    'When the credential that opened the stream stops granting the inbox, the stream ends the same way with `event: access.revoked`, data `{ inboxId, reason }` (see the StreamAccessRevoked schema):',
    '`session_signed_out` (`DELETE /me/session`), `session_revoked` (its connect code was replayed), `session_expired`, `api_key_revoked` (`DELETE /me/api-key`, or `inboxkit keys revoke` on the database, noticed by the next ping).',
    'No `message` event is sent after it; reconnecting with that credential is a 401. Unknown event names are to be ignored.',
    'A client that reads too slowly is disconnected and resumes with Last-Event-ID. `HEAD` answers the headers of the stream (200, `text/event-stream`) with no body and opens nothing.',
    'Extension: a node that drains sends `retry: 20` and `event: handover` (data `{}`), delivers for up to 2 s more, then closes; a client may open its next connection at once and leave this one once the next is `ready`.',
    'Extension: with `include=message` each message event carries the whole message, the same object as `GET /messages/{id}` (sanitized HTML, text, headers, attachment metadata),',
    'when its JSON is at most 1 MiB; a larger one is sent as its summary. Replay sends the same shape. Clients tell the two apart by the presence of `headers`.',
  ].join(' '),
  security,
  request: {
    params: InboxIdParams,
    query: z.object({
      lastEventId: z
        .string()
        .regex(/^[0-9]{0,15}$/)
        .optional()
        .meta({ description: 'Resume after this seq, a non-negative integer in decimal digits (for clients that cannot send the Last-Event-ID header); empty means none' }),
      include: z
        .string()
        .max(200)
        .optional()
        .meta({
          description:
            'Extension. `message`: each `message` event carries the whole message (as `GET /messages/{id}`) instead of its summary, when its JSON is at most 1 MiB. A comma-separated list; values the server does not know are ignored.',
          example: 'message',
        }),
    }),
    headers: z.object({
      'last-event-id': z
        .string()
        .regex(/^[0-9]{0,15}$/)
        .optional()
        .meta({ description: 'Resume after this seq, a non-negative integer in decimal digits (sent by EventSource on reconnect); empty means none. Takes precedence over `lastEventId`' }),
    }),
  },
  responses: {
    200: {
      description: 'The event stream (`Cache-Control: no-cache, no-transform`)',
      headers: COMMON_HEADERS.extend({ 'X-Content-Type-Options': z.literal('nosniff').meta({ description: 'Always `nosniff`' }) }),
      content: { 'text/event-stream': { schema: z.string().meta({ description: 'Server-Sent Events: `message`, `ready`, `inbox.deleted`, `inbox.expired`, `access.revoked`; `: ping` comments' }) } },
    },
    ...errorResponses(400, 404),
  },
});
