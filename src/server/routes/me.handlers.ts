/**
 * The current caller: `GET /me` and `DELETE /me/session`.
 *
 * @packageDocumentation
 */
import type { OpenAPIHono, RouteHandler } from '@hono/zod-openapi';
import { userOf } from '../auth/principal.ts';
import { requireCredential } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { publishAccessRevoked } from '../events/revocations.ts';
import { planOf } from '../auth/plans.ts';
import { HttpError } from '../http/errors.ts';
import { createRouter } from '../http/router.ts';
import { meRoute, revokeApiKeyRoute, signOutRoute } from './me.routes.ts';

/** `GET /me`: who is calling, and what their plan allows. */
function me(ctx: ServerContext): RouteHandler<typeof meRoute, AppEnv> {
  return (c) => {
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
  };
}

/** `DELETE /me/session`: signs out the session token sent; its streams end now. */
function signOut(ctx: ServerContext): RouteHandler<typeof signOutRoute, AppEnv> {
  return async (c) => {
    const principal = c.var.principal;
    requireCredential(principal);
    if (principal.kind !== 'session') {
      throw new HttpError('not_a_session', `DELETE /me/session signs out a session token, but this request carries ${principal.kind === 'apiKey' ? 'an API key' : principal.kind === 'operator' ? 'the operator token' : 'an inbox token'}.`);
    }
    await ctx.store.revokeSession(principal.tokenHash);
    // Streams opened with this session end now, not at their next request.
    await publishAccessRevoked(ctx, principal.user.id, 'session_signed_out');
    return c.json({ data: { signedOut: true as const } }, 200);
  };
}

/** `DELETE /me/api-key` (extension): revokes the API key sent, and what it made. */
function revokeApiKey(ctx: ServerContext): RouteHandler<typeof revokeApiKeyRoute, AppEnv> {
  return async (c) => {
    const principal = c.var.principal;
    requireCredential(principal);
    if (principal.kind !== 'apiKey') {
      const sent =
        principal.kind === 'session'
          ? 'a session token (sign it out with DELETE /me/session)'
          : principal.kind === 'operator'
            ? 'the operator token (it ends when `inboxkit serve` stops; it is not an API key)'
            : 'an inbox token (delete the inbox with DELETE /inboxes/{id} to end it)';
      throw new HttpError('validation_error', `Authorization: DELETE /me/api-key revokes the API key sent, but this request carries ${sent}.`);
    }
    const revoked = await ctx.store.revokeApiKey(principal.keyHash);
    if (revoked) await publishAccessRevoked(ctx, revoked.userId, 'api_key_revoked');
    return c.json({ data: { revoked: true as const } }, 200);
  };
}

/** The account routes (paths relative to `/api/v1`). */
export function createMeRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(meRoute, me(ctx));
  app.openapi(signOutRoute, signOut(ctx));
  app.openapi(revokeApiKeyRoute, revokeApiKey(ctx));
  return app;
}
