/**
 * The current caller: `GET /me` and `DELETE /me/session`.
 *
 * @packageDocumentation
 */
import { createRoute } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { MeSchema, SignedOutSchema } from '../../wire/schemas.ts';
import { userOf } from '../auth/principal.ts';
import { requireCredential } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context.ts';
import { planOf } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses, okResponse, security } from '../http/openapi.ts';
import { createRouter } from '../http/router.ts';

const meRoute = createRoute({
  method: 'get',
  path: '/me',
  tags: ['Account'],
  summary: 'Who is calling, and what their plan allows',
  security: security.optional,
  responses: { ...okResponse(MeSchema, 'The caller'), ...errorResponses() },
});

const signOutRoute = createRoute({
  method: 'delete',
  path: '/me/session',
  tags: ['Account'],
  summary: 'Sign out the bearer session',
  description: 'Revokes the session token sent. With an API key or inbox token: 400 `not_a_session`.',
  security: security.user,
  responses: { ...okResponse(SignedOutSchema, 'The session is revoked'), ...errorResponses(400) },
});

/** The account routes (paths relative to `/api/v1`). */
export function createMeRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();

  app.openapi(meRoute, (c) => {
    const principal = c.var.principal;
    const user = userOf(principal);
    return c.json(
      {
        data: {
          authenticated: principal.kind !== 'anonymous',
          credential: principal.kind,
          user: user ? { id: user.id, email: user.email } : null,
          plan: planOf(ctx.config, principal),
        },
      },
      200,
    );
  });

  app.openapi(signOutRoute, async (c) => {
    const principal = c.var.principal;
    requireCredential(principal);
    if (principal.kind !== 'session') {
      throw new ApiError('not_a_session', `DELETE /me/session signs out a session token, but this request carries ${principal.kind === 'apiKey' ? 'an API key' : principal.kind === 'operator' ? 'the operator token' : 'an inbox token'}.`);
    }
    await ctx.store.revokeSession(principal.tokenHash);
    return c.json({ data: { signedOut: true as const } }, 200);
  });

  return app;
}
