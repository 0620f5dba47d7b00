/**
 * Connecting an extension (or any public client) with PKCE (RFC 7636, S256):
 * a signed-in user asks for a connect code bound to a challenge and a redirect
 * URI; the client exchanges the code and its verifier for a session token.
 *
 * @packageDocumentation
 */
import type { OpenAPIHono, RouteHandler } from '@hono/zod-openapi';
import { CONNECT_CODE_PREFIX, SESSION_PREFIX, constantTimeEqual, newSecret, verifyPkce } from '../auth/secrets.ts';
import { requireCredential } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { publishAccessRevoked } from '../events/revocations.ts';
import { HttpError } from '../http/errors.ts';
import { iso } from '../http/present.ts';
import { createRouter } from '../http/router.ts';
import { createCodeRoute, tokenRoute } from './extension.routes.ts';

/** `POST /extension/codes`: a connect code bound to a PKCE challenge and a redirect URI, for an API key only. */
function createCode(ctx: ServerContext): RouteHandler<typeof createCodeRoute, AppEnv> {
  return async (c) => {
    const principal = c.var.principal;
    requireCredential(principal);
    // Only an API key: a session that could ask for codes would mint sessions that outlive it.
    if (principal.kind !== 'apiKey') {
      const sent = principal.kind === 'operator' ? 'the operator token' : principal.kind === 'session' ? 'a session token (a session cannot make another session)' : 'an inbox token';
      throw new HttpError('plan_required', `Connect codes are issued only for an API key: send it (Authorization: Bearer tm_…), not ${sent}.`);
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
      keyHash: principal.keyHash,
    });
    return c.json({ data: { code, expiresAt: iso(expiresAt) } }, 200);
  };
}

/** `POST /extension/token`: a connect code and its verifier exchanged, once, for a session token. */
function exchangeCode(ctx: ServerContext): RouteHandler<typeof tokenRoute, AppEnv> {
  return async (c) => {
    const body = c.req.valid('json');
    const codeHash = ctx.hash(body.code);
    const now = ctx.now();
    const code = await ctx.store.spendConnectCode(codeHash);
    const refuse = (why: string) => new HttpError('invalid_grant', `The connect code cannot be exchanged: ${why}. Ask for a new code.`);
    if (!code) throw refuse('it is unknown');
    if (code.used) {
      // A replayed code may have been stolen: end every session it issued (RFC 6749 §4.1.2).
      if ((await ctx.store.revokeSessionsByCode(codeHash)) > 0) await publishAccessRevoked(ctx, code.userId, 'session_revoked');
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
    // A code from before sessions were bound to their key has no key: it makes no session.
    if (code.keyHash === null || !(await ctx.store.findUserByApiKeyHash(code.keyHash))) throw refuse('the API key that asked for it was revoked');
    await ctx.store.addSession({ tokenHash: ctx.hash(accessToken), userId: user.id, expiresAt, codeHash, parentKeyHash: code.keyHash });
    return c.json({ data: { accessToken, tokenType: 'Bearer' as const, expiresIn, expiresAt: iso(expiresAt) } }, 200);
  };
}

/** The extension routes (paths relative to `/api/v1`). */
export function createExtensionRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(createCodeRoute, createCode(ctx));
  app.openapi(tokenRoute, exchangeCode(ctx));
  return app;
}
