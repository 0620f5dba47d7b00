/**
 * Credential resolution and rate limiting, as one middleware: the rate-limit
 * key depends on who is calling, and a request with an invalid credential is
 * limited by its client address, so guessing credentials is rate limited too.
 *
 * @packageDocumentation
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Plan } from '../../wire/schemas.ts';
import { HttpError } from '../http/errors.ts';
import type { RateLimitDecision, RateLimiter } from '../http/ratelimit.ts';
import type { Store } from '../storage/contract/types.ts';
import { planOf } from './plans.ts';
import { providerAuthorization } from './provider-credentials.ts';
import type { PlanId } from './plans.ts';
import type { Principal } from './principal.ts';
import { callerOf } from './caller.ts';
import { API_KEY_PREFIX, OPERATOR_TOKEN_PREFIX, constantTimeEqual } from './secrets.ts';

/** The request variables the middleware sets, readable in every route as `c.var.*`. */
export interface AuthVariables {
  /** Who is calling (resolved from the credential; invalid credentials never reach a route). */
  principal: Principal;
  /** The rate-limit decision of this request, or null when rate limiting is off (unset until the middleware ran). */
  rateLimit: RateLimitDecision | null;
}

/** The Hono environment the middleware works in. */
interface AuthEnv {
  Variables: AuthVariables;
}

/** What credential resolution reads: a server context fits. */
export interface AuthDeps {
  store: Pick<Store, 'findApiKey' | 'touchApiKey' | 'findSession' | 'findUserById' | 'findInboxByTokenHash'>;
  config: { plans: Record<PlanId, Plan> };
  /** The clock, in epoch milliseconds. */
  now(): number;
  /** How secrets are hashed for lookup. */
  hash(secret: string): string;
  /** Hash of the operator token that sees every inbox, or null/absent when the service offers none. */
  operatorTokenHash?: string | null;
}

/** How stale an API key's "last used" time may get before a request writes it again. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The headers a credential is read from. */
interface CredentialHeaders {
  authorization?: string | undefined;
  inboxToken?: string | undefined;
}

/**
 * Resolves a request's credential. A credential that is sent but unknown,
 * expired or revoked is an `unauthorized` error, never a silent anonymous call.
 * Sending both `Authorization` and `X-Inbox-Token` is a `validation_error`:
 * neither is silently preferred.
 */
async function resolvePrincipal(
  ctx: AuthDeps,
  headers: CredentialHeaders,
  clientAddress: string,
): Promise<Principal | HttpError> {
  const now = ctx.now();
  if (headers.authorization !== undefined && headers.inboxToken !== undefined) {
    return new HttpError(
      'validation_error',
      'Authorization and X-Inbox-Token: send one credential per request, not both (Authorization: Bearer for an API key or session token, or X-Inbox-Token for one inbox).',
    );
  }
  if (headers.authorization !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(headers.authorization);
    if (!match?.[1]) {
      return new HttpError('unauthorized', 'The Authorization header must be "Bearer <API key or session token>".');
    }
    const token = match[1];
    const hash = ctx.hash(token);
    if (token.startsWith(OPERATOR_TOKEN_PREFIX)) {
      const expected = ctx.operatorTokenHash ?? null;
      if (expected === null || !constantTimeEqual(hash, expected)) {
        return new HttpError('unauthorized', 'The operator token is not valid: it changes on every start of `inboxkit serve`; open the viewer URL the running service printed.');
      }
      return { kind: 'operator', tokenHash: hash };
    }
    if (token.startsWith(API_KEY_PREFIX)) {
      const found = await ctx.store.findApiKey(hash);
      if (!found) return new HttpError('unauthorized', 'The API key is not valid. Check the key, or create one with `inboxkit keys create`.');
      // "Last used" for `inboxkit keys list`, written at most once a minute per key.
      // Bookkeeping only: a store that refuses the write (a read-only replica, a failing disk) does not fail the request.
      if (found.key.lastUsedAt === null || now - found.key.lastUsedAt >= LAST_USED_RESOLUTION_MS) await ctx.store.touchApiKey(hash, now).catch(() => undefined);
      return { kind: 'apiKey', user: found.user, keyHash: hash, caps: found.key.caps };
    }
    const session = await ctx.store.findSession(hash);
    if (!session || session.revoked || session.expiresAt <= now) {
      return new HttpError('unauthorized', 'The session token is unknown, expired or signed out. Connect again to get a new one.');
    }
    const user = await ctx.store.findUserById(session.userId);
    if (!user) return new HttpError('unauthorized', 'The session token belongs to a user that no longer exists.');
    // Held to the caps of the key it was issued under, so that a session never lifts them.
    const parent = session.parentKeyHash === null ? null : await ctx.store.findApiKey(session.parentKeyHash);
    const key = parent && Object.keys(parent.key.caps).length > 0 ? { key: { hash: parent.key.keyHash, caps: parent.key.caps } } : {};
    return { kind: 'session', user, tokenHash: hash, expiresAt: session.expiresAt, ...key };
  }
  if (headers.inboxToken !== undefined) {
    const hash = ctx.hash(headers.inboxToken.trim());
    const inbox = await ctx.store.findInboxByTokenHash(hash);
    if (!inbox || (inbox.expiresAt !== null && inbox.expiresAt <= now)) {
      return new HttpError('unauthorized', 'The inbox token is unknown, or its inbox was deleted or has expired. Create a new inbox.');
    }
    return { kind: 'inboxToken', inboxId: inbox.id, tokenHash: hash };
  }
  return { kind: 'anonymous', clientAddress };
}

/** The rate-limit key of a principal: its caller's (`callerOf`): the credential, or the client address. */
function rateKey(principal: Principal | null, clientAddress: string): string {
  return callerOf(principal, clientAddress).key;
}

/**
 * Counts a request whose credential is unknown (refused before the app read it)
 * against its client address, as an anonymous call.
 *
 * @returns The decision, or null when the guest plan has no rate limit.
 */
export async function anonymousRateLimit(ctx: Pick<AuthDeps, 'config' | 'now'>, limiter: RateLimiter, clientAddress: string): Promise<RateLimitDecision | null> {
  const limit = planOf(ctx.config, { kind: 'anonymous', clientAddress }).entitlements.requestsPerMinute;
  return limit === null ? null : limiter.hit(rateKey(null, clientAddress), limit, ctx.now());
}

/**
 * The middleware: sets `c.var.principal` and `c.var.rateLimit`, answers 401 for
 * an invalid credential and 429 over the allowance. The app adds the rate-limit
 * headers to every response.
 *
 * @param clientAddressOf - How to read the client's address from a request.
 */
export function createAuthMiddleware(
  ctx: AuthDeps,
  limiter: RateLimiter,
  clientAddressOf: (c: Context) => string,
): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    const clientAddress = clientAddressOf(c);
    const resolved = await resolvePrincipal(
      ctx,
      { authorization: providerAuthorization(c.req.path, c.req.header('authorization'), (name) => c.req.header(name)), inboxToken: c.req.header('x-inbox-token') },
      clientAddress,
    );
    const principal = resolved instanceof HttpError ? null : resolved;
    const plan = planOf(ctx.config, principal ?? { kind: 'anonymous', clientAddress });
    const limit = plan.entitlements.requestsPerMinute;
    if (limit !== null) {
      const decision = await limiter.hit(rateKey(principal, clientAddress), limit, ctx.now());
      c.set('rateLimit', decision);
      if (!decision.allowed) {
        throw new HttpError('rate_limited', `Too many requests: the allowance is ${limit} per minute. Retry after ${decision.resetSeconds} s.`, {
          'Retry-After': String(decision.resetSeconds),
        });
      }
    } else {
      c.set('rateLimit', null);
    }
    if (resolved instanceof HttpError) throw resolved;
    c.set('principal', resolved);
    await next();
  };
}
