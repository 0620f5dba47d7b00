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
import type { LinkDoc } from '../http/openapi.ts';
import { InboxIdParams, PageQuerySchema } from '../http/params.ts';

/**
 * Links from an answer that names an inbox to what can be done with it, so
 * generators and stateful tools can walk the API (create → read, messages, stream, delete).
 */
function inboxLinks(id: string, which = 'this inbox'): Record<string, LinkDoc> {
  const link = (operationId: string, verb: string): LinkDoc => ({ operationId, parameters: { id }, description: `${verb} ${which}` });
  return {
    getInbox: link('getInbox', 'Read'),
    listMessages: link('listMessages', 'List the messages of'),
    streamInbox: link('streamInbox', 'Stream the messages of'),
    updateInbox: link('updateInbox', 'Change the label or forwarding address of'),
    deleteInbox: link('deleteInbox', 'Delete'),
  };
}

/** `POST /inboxes` */
export const createInboxRoute = createRoute({
  method: 'post',
  path: '/inboxes',
  operationId: 'createInbox',
  tags: ['Inboxes'],
  summary: 'Create an inbox',
  description:
    'Without a credential, creates a guest inbox (reachable with the returned token only). With an API key or session, the inbox belongs to the user. ' +
    'Neither `localPart` nor `domainId`: a random address on the default domain.',
  security: security.optional,
  request: { body: { required: false, description: 'What to create; may be empty', content: { 'application/json': { schema: CreateInboxRequestSchema } } } },
  responses: { ...okResponse(CreatedInboxSchema, 'The inbox, with its inbox token (shown only here)', inboxLinks('$response.body#/data/id')), ...errorResponses(400, 403, 404, 409, 413) },
});

/** `GET /inboxes` */
export const listInboxesRoute = createRoute({
  method: 'get',
  path: '/inboxes',
  operationId: 'listInboxes',
  tags: ['Inboxes'],
  summary: 'List the caller\'s active inboxes',
  description: 'Newest first, paginated. With an inbox token: that one inbox. With the operator token (inboxkit extension): every active inbox.',
  security: security.required,
  request: { query: PageQuerySchema },
  responses: { ...okResponse(InboxPageSchema, 'A page of inboxes', {
      ...inboxLinks('$response.body#/data/items/0/id', 'the first inbox of the page'),
      nextPage: { operationId: 'listInboxes', parameters: { cursor: '$response.body#/data/nextCursor' }, description: 'The next page (while `nextCursor` is not null)' },
    }), ...errorResponses(400) },
});

/** `GET /inboxes/{id}` */
export const getInboxRoute = createRoute({
  method: 'get',
  path: '/inboxes/{id}',
  operationId: 'getInbox',
  tags: ['Inboxes'],
  summary: 'Get an inbox',
  security: security.required,
  request: { params: InboxIdParams },
  responses: { ...okResponse(InboxSchema, 'The inbox', inboxLinks('$response.body#/data/id')), ...errorResponses(404) },
});

/** `PATCH /inboxes/{id}` */
export const updateInboxRoute = createRoute({
  method: 'patch',
  path: '/inboxes/{id}',
  operationId: 'updateInbox',
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
  operationId: 'deleteInbox',
  tags: ['Inboxes'],
  summary: 'Delete an inbox and its messages',
  security: security.required,
  request: { params: InboxIdParams },
  responses: { ...okResponse(DeletedInboxSchema, 'The inbox is gone'), ...errorResponses(404) },
});
