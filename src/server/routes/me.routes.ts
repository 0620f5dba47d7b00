/**
 * The current caller: `GET /me` and `DELETE /me/session`.
 *
 * (route definitions; the behaviour is in the handlers module)
 *
 * @packageDocumentation
 */
import { createRoute } from '@hono/zod-openapi';
import { MeSchema, RevokedApiKeySchema, SignedOutSchema } from '../../wire/schemas.ts';
import { errorResponses, okResponse, security } from '../http/openapi.ts';

/** `GET /me` */
export const meRoute = createRoute({
  method: 'get',
  path: '/me',
  operationId: 'getMe',
  tags: ['Account'],
  summary: 'Who is calling, and what their plan allows',
  security: security.optional,
  responses: { ...okResponse(MeSchema, 'The caller'), ...errorResponses() },
});

/** `DELETE /me/session` */
export const signOutRoute = createRoute({
  method: 'delete',
  path: '/me/session',
  operationId: 'signOut',
  tags: ['Account'],
  summary: 'Sign out the bearer session',
  description: 'Revokes the session token sent. With an API key or inbox token: 400 `not_a_session`.',
  security: security.user,
  responses: { ...okResponse(SignedOutSchema, 'The session is revoked'), ...errorResponses(400) },
});

/** `DELETE /me/api-key` (an inboxkit extension) */
export const revokeApiKeyRoute = createRoute({
  method: 'delete',
  path: '/me/api-key',
  operationId: 'revokeApiKey',
  tags: ['Account'],
  summary: 'Revoke the API key sent (inboxkit extension)',
  description:
    'Not part of the Disposable Inbox API specification. Deletes the API key of the request; every request with it is then a 401, and its open event streams end with `access.revoked` (`reason: api_key_revoked`). ' +
    'A key given to the server by `--api-key` comes back at the next start. With a session token or an inbox token: 400 `validation_error`.',
  'x-inboxkit-extension': true,
  security: security.user,
  responses: { ...okResponse(RevokedApiKeySchema, 'The key is revoked'), ...errorResponses(400) },
});
