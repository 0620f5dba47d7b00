/**
 * Connecting an extension (or any public client) with PKCE (RFC 7636, S256):
 * a signed-in user asks for a connect code bound to a challenge and a redirect
 * URI; the client exchanges the code and its verifier for a session token.
 *
 * @packageDocumentation
 */
import { createRoute } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { ConnectCodeRequestSchema, ConnectCodeSchema, TokenRequestSchema, TokenSchema } from '../../wire/schemas.ts';
import { CONNECT_CODE_PREFIX, SESSION_PREFIX, constantTimeEqual, newSecret, verifyPkce } from '../auth/secrets.ts';
import { requireCredential } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { iso } from '../http/format.ts';
import { errorResponses, jsonBody, okResponse, security } from '../http/openapi.ts';
import { createRouter } from '../http/router.ts';

const createCodeRoute = createRoute({
  method: 'post',
  path: '/extension/codes',
  tags: ['Extension'],
  summary: 'Issue a connect code (inboxkit extension of the API)',
  description: 'For a signed-in user (API key or session). The code is single-use, short-lived and bound to the S256 challenge and the redirect URI.',
  security: security.user,
  request: jsonBody(ConnectCodeRequestSchema, 'The PKCE challenge and the redirect URI'),
  responses: { ...okResponse(ConnectCodeSchema, 'The connect code'), ...errorResponses(400, 403, 413) },
});

const tokenRoute = createRoute({
  method: 'post',
  path: '/extension/token',
  tags: ['Extension'],
  summary: 'Exchange a connect code for a session token',
  description:
    'The verifier must match the code\'s S256 challenge and `redirectUri` must equal the one the code was issued for. Any mismatch is a 400 `invalid_grant` and spends the code; ' +
    'presenting a spent code again also revokes the sessions it issued.',
  security: security.optional,
  request: jsonBody(TokenRequestSchema, 'The code, its verifier and the redirect URI'),
  responses: { ...okResponse(TokenSchema, 'A session token'), ...errorResponses(400, 413) },
});

/** The extension routes (paths relative to `/api/v1`). */
export function createExtensionRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();

  app.openapi(createCodeRoute, async (c) => {
    const principal = c.var.principal;
    requireCredential(principal);
    if (principal.kind === 'inboxToken' || principal.kind === 'operator') {
      throw new ApiError('plan_required', `Connect codes are for user accounts: send an API key (Authorization: Bearer tm_…), not ${principal.kind === 'operator' ? 'the operator token' : 'an inbox token'}.`);
    }
    const body = c.req.valid('json');
    const code = newSecret(CONNECT_CODE_PREFIX);
    const expiresAt = ctx.now() + ctx.config.connectCodeTtlSeconds * 1000;
    await ctx.store.addConnectCode({
      codeHash: ctx.hash(code),
      userId: principal.user.id,
      challenge: body.codeChallenge,
      redirectUri: body.redirectUri,
      expiresAt,
    });
    return c.json({ data: { code, expiresAt: iso(expiresAt) } }, 200);
  });

  app.openapi(tokenRoute, async (c) => {
    const body = c.req.valid('json');
    const codeHash = ctx.hash(body.code);
    const now = ctx.now();
    const code = await ctx.store.spendConnectCode(codeHash);
    const refuse = (why: string) => new ApiError('invalid_grant', `The connect code cannot be exchanged: ${why}. Ask for a new code.`);
    if (!code) throw refuse('it is unknown');
    if (code.used) {
      // A replayed code may have been stolen: end every session it issued (RFC 6749 §4.1.2).
      await ctx.store.revokeSessionsByCode(codeHash);
      throw refuse('it was already used (the sessions it issued are now revoked)');
    }
    if (code.expiresAt <= now) throw refuse('it has expired');
    if (!constantTimeEqual(body.redirectUri, code.redirectUri)) throw refuse('redirectUri differs from the one the code was issued for');
    if (!verifyPkce(body.codeVerifier, code.challenge)) throw refuse('codeVerifier does not match the S256 code challenge');
    const user = await ctx.store.findUserById(code.userId);
    if (!user) throw refuse('its user no longer exists');

    const accessToken = newSecret(SESSION_PREFIX);
    const expiresIn = ctx.config.sessionTtlSeconds;
    const expiresAt = now + expiresIn * 1000;
    await ctx.store.addSession({ tokenHash: ctx.hash(accessToken), userId: user.id, expiresAt, codeHash });
    return c.json({ data: { accessToken, tokenType: 'Bearer' as const, expiresIn, expiresAt: iso(expiresAt) } }, 200);
  });

  return app;
}
