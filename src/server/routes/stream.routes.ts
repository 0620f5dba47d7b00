/**
 * The event stream endpoint (route definition; the behaviour is in
 * `stream.handlers.ts`).
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import { errorResponses, security as securityOf } from '../http/openapi.ts';
import { InboxIdParams } from '../http/params.ts';

const security = [...securityOf.required];

/** `GET /inboxes/{id}/stream` */
export const streamRoute = createRoute({
  method: 'get',
  path: '/inboxes/{id}/stream',
  tags: ['Messages'],
  summary: 'Live stream of an inbox (Server-Sent Events)',
  description: [
    'First line `retry: 2000`. With `Last-Event-ID` (header) or `lastEventId` (query) of N, every message with seq > N is sent first, oldest first.',
    'Each message is `event: message`, `id: <seq>`, `data: <MessageSummary JSON>`. Then `event: ready` with `{ inboxId, lastSeq }` (and `id: lastSeq`) once live;',
    'no message falls between replay and live. A `: ping` comment at least every 15 s. `event: inbox.deleted` or `event: inbox.expired`, then the server closes the stream.',
    'A client that reads too slowly is disconnected and resumes with Last-Event-ID.',
    'Extension: with `include=message` each message event carries the whole message, the same object as `GET /messages/{id}` (sanitized HTML, text, headers, attachment metadata),',
    'when its JSON is at most 1 MiB; a larger one is sent as its summary. Replay sends the same shape. Clients tell the two apart by the presence of `headers`.',
  ].join(' '),
  security,
  request: {
    params: InboxIdParams,
    query: z.object({
      lastEventId: z.string().optional().meta({ description: 'Resume after this seq (for clients that cannot send the Last-Event-ID header)' }),
      include: z
        .string()
        .optional()
        .meta({
          description:
            'Extension. `message`: each `message` event carries the whole message (as `GET /messages/{id}`) instead of its summary, when its JSON is at most 1 MiB. A comma-separated list; values the server does not know are ignored.',
          example: 'message',
        }),
    }),
    headers: z.object({
      'last-event-id': z.string().optional().meta({ description: 'Resume after this seq (sent by EventSource on reconnect)' }),
    }),
  },
  responses: {
    200: { description: 'The event stream', content: { 'text/event-stream': { schema: z.string() } } },
    ...errorResponses(400, 404),
  },
});
