/**
 * Connecting an extension (or any public client) with PKCE (RFC 7636, S256):
 * a signed-in user asks for a connect code bound to a challenge and a redirect
 * URI; the client exchanges the code and its verifier for a session token.
 *
 * (route definitions; the behaviour is in the handlers module)
 *
 * @packageDocumentation
 */
import { createRoute } from '@hono/zod-openapi';
import { ConnectCodeRequestSchema, ConnectCodeSchema, TokenRequestSchema, TokenSchema } from '../../wire/schemas.ts';
import { errorResponses, jsonBody, okResponse, security } from '../http/openapi.ts';

/** `POST /extension/codes` */
export const createCodeRoute = createRoute({
  method: 'post',
  path: '/extension/codes',
  operationId: 'createConnectCode',
  tags: ['Extension'],
  summary: 'Issue a connect code (inboxkit extension of the API)',
  description:
    'For an API key only: a session token is refused (403 `plan_required`), so a session never makes another session. ' +
    'The code is single-use, short-lived and bound to the S256 challenge and the redirect URI; the session it is exchanged for ends when the API key is revoked.',
  security: security.user,
  request: jsonBody(ConnectCodeRequestSchema, 'The PKCE challenge and the redirect URI'),
  responses: { ...okResponse(ConnectCodeSchema, 'The connect code'), ...errorResponses(400, 403, 413) },
});

/** `POST /extension/token` */
export const tokenRoute = createRoute({
  method: 'post',
  path: '/extension/token',
  operationId: 'exchangeConnectCode',
  tags: ['Extension'],
  summary: 'Exchange a connect code for a session token',
  description:
    'The verifier must match the code\'s S256 challenge and `redirectUri` must equal the one the code was issued for. Any mismatch is a 400 `invalid_grant` and spends the code; ' +
    'presenting a spent code again also revokes the sessions it issued.',
  security: security.optional,
  request: jsonBody(TokenRequestSchema, 'The code, its verifier and the redirect URI'),
  responses: { ...okResponse(TokenSchema, 'A session token'), ...errorResponses(400, 413) },
});
