/**
 * Inboxes: create, list, read, update, delete.
 *
 * (route definitions; the behaviour is in the handlers module)
 *
 * @packageDocumentation
 */
import { createRoute } from '@hono/zod-openapi';
import { CreatedInboxSchema, CreateInboxRequestSchema, DeletedInboxSchema, InboxPageSchema, InboxSchema, UpdateInboxRequestSchema } from '../../wire/schemas.ts';
import { errorResponses, jsonBody, okResponse, security } from '../http/openapi.ts';
import { InboxIdParams, PageQuerySchema } from '../http/params.ts';

/** `POST /inboxes` */
export const createInboxRoute = createRoute({
  method: 'post',
  path: '/inboxes',
  tags: ['Inboxes'],
  summary: 'Create an inbox',
  description:
    'Without a credential, creates a guest inbox (reachable with the returned token only). With an API key or session, the inbox belongs to the user. ' +
    'Neither `localPart` nor `domainId`: a random address on the default domain.',
  security: security.optional,
  request: { body: { required: false, description: 'What to create; may be empty', content: { 'application/json': { schema: CreateInboxRequestSchema } } } },
  responses: { ...okResponse(CreatedInboxSchema, 'The inbox, with its inbox token (shown only here)'), ...errorResponses(400, 403, 404, 409, 413) },
});

/** `GET /inboxes` */
export const listInboxesRoute = createRoute({
  method: 'get',
  path: '/inboxes',
  tags: ['Inboxes'],
  summary: 'List the caller\'s active inboxes',
  description: 'Newest first, paginated. With an inbox token: that one inbox. With the operator token (inboxkit extension): every active inbox.',
  security: security.required,
  request: { query: PageQuerySchema },
  responses: { ...okResponse(InboxPageSchema, 'A page of inboxes'), ...errorResponses(400) },
});

/** `GET /inboxes/{id}` */
export const getInboxRoute = createRoute({
  method: 'get',
  path: '/inboxes/{id}',
  tags: ['Inboxes'],
  summary: 'Get an inbox',
  security: security.required,
  request: { params: InboxIdParams },
  responses: { ...okResponse(InboxSchema, 'The inbox'), ...errorResponses(404) },
});

/** `PATCH /inboxes/{id}` */
export const updateInboxRoute = createRoute({
  method: 'patch',
  path: '/inboxes/{id}',
  tags: ['Inboxes'],
  summary: 'Update an inbox\'s label or forwarding address',
  description: 'At least one field; `null` clears. Setting `forwardTo` where the server has no relay is a 400 `forwarding_unavailable`.',
  security: security.required,
  request: { params: InboxIdParams, ...jsonBody(UpdateInboxRequestSchema, 'The fields to change') },
  responses: { ...okResponse(InboxSchema, 'The updated inbox'), ...errorResponses(400, 403, 404, 413) },
});

/** `DELETE /inboxes/{id}` */
export const deleteInboxRoute = createRoute({
  method: 'delete',
  path: '/inboxes/{id}',
  tags: ['Inboxes'],
  summary: 'Delete an inbox and its messages',
  security: security.required,
  request: { params: InboxIdParams },
  responses: { ...okResponse(DeletedInboxSchema, 'The inbox is gone'), ...errorResponses(404) },
});
