/**
 * The current caller: `GET /me` and `DELETE /me/session`.
 *
 * (route definitions; the behaviour is in the handlers module)
 *
 * @packageDocumentation
 */
import { createRoute } from '@hono/zod-openapi';
import { MeSchema, SignedOutSchema } from '../../wire/schemas.ts';
import { errorResponses, okResponse, security } from '../http/openapi.ts';

/** `GET /me` */
export const meRoute = createRoute({
  method: 'get',
  path: '/me',
  tags: ['Account'],
  summary: 'Who is calling, and what their plan allows',
  security: security.optional,
  responses: { ...okResponse(MeSchema, 'The caller'), ...errorResponses() },
});

/** `DELETE /me/session` */
export const signOutRoute = createRoute({
  method: 'delete',
  path: '/me/session',
  tags: ['Account'],
  summary: 'Sign out the bearer session',
  description: 'Revokes the session token sent. With an API key or inbox token: 400 `not_a_session`.',
  security: security.user,
  responses: { ...okResponse(SignedOutSchema, 'The session is revoked'), ...errorResponses(400) },
});
