/**
 * The caller-wide event stream (route definition; the behaviour is in
 * `events.handlers.ts`).
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import { COMMON_HEADERS, errorResponses, security as securityOf } from '../http/openapi.ts';

/** `GET /me/events` (an inboxkit extension) */
export const eventsRoute = createRoute({
  method: 'get',
  path: '/me/events',
  operationId: 'streamEvents',
  tags: ['Inboxes'],
  summary: 'Live events of every inbox the caller can see (Server-Sent Events; inboxkit extension)',
  description: [
    'Not part of the Disposable Inbox API specification: the local service offers it so that a list of inboxes (the web viewer) stays current without polling.',
    'First line `retry: 2000`, then `event: ready` with `{}` once subscribed. Then, for the inboxes the credential can see:',
    '`event: inbox.created` with the Inbox; `event: message` with `{ inboxId, message: MessageSummary }`;',
    '`event: inbox.deleted` or `event: inbox.expired` with `{ inboxId }`. A `: ping` comment at least every 15 s.',
    'There is no replay: after a reconnect, list the inboxes again (`GET /inboxes`). With an inbox token, only that inbox; with an API key or session, the user\'s inboxes; with the operator token, every inbox.',
    'When the credential stops holding (signed out, revoked, expired), the stream ends with `event: access.revoked`, data `{ reason }` as for an inbox stream; opened with an inbox token, it ends with `inbox.deleted` or `inbox.expired` when that inbox goes (at the moment its `expiresAt` passes, not at the next sweep).',
    'A client that reads too slowly is disconnected. `HEAD` answers the headers of the stream (200, `text/event-stream`) with no body and opens nothing.',
    'A node that drains sends `retry: 20` and `event: handover` (data `{}`), delivers for up to 2 s more, then closes, as on an inbox stream.',
  ].join(' '),
  'x-inboxkit-extension': true,
  security: [...securityOf.required],
  responses: {
    200: {
      description: 'The event stream (`Cache-Control: no-cache, no-transform`)',
      headers: COMMON_HEADERS.extend({ 'X-Content-Type-Options': z.literal('nosniff').meta({ description: 'Always `nosniff`' }) }),
      content: { 'text/event-stream': { schema: z.string().meta({ description: 'Server-Sent Events: `ready`, `inbox.created`, `message`, `inbox.deleted`, `inbox.expired`, `access.revoked`; `: ping` comments' }) } },
    },
    ...errorResponses(),
  },
});
