/**
 * The rate-limit headers on every answer, a refusal included.
 *
 * @packageDocumentation
 */
import type { Context, MiddlewareHandler } from 'hono';
import { rateLimitHeaders } from '../http/ratelimit.ts';
import type { RateLimiter } from '../http/ratelimit.ts';
import { setResponseHeaders } from '../http/response-headers.ts';
import { anonymousRateLimit } from './middleware.ts';
import type { AuthDeps, AuthVariables } from './middleware.ts';

/** Options of {@link reportRateLimit}. */
export interface ReportRateLimitOptions {
  /** What the guest plan's allowance is read from (a server context fits). */
  deps: Pick<AuthDeps, 'config' | 'now'>;
  /** The limiter the credential middleware counts with. */
  limiter: RateLimiter;
  /** How to read the client's address from a request. */
  clientAddressOf: (c: Context) => string;
}

/**
 * The middleware that adds `X-RateLimit-*` (and `Retry-After` when refused) to
 * the response, from the decision the credential middleware made. Placed
 * before it: a request refused before that decision (by the host check, or a
 * store that failed) is counted by its client address, so every answer is.
 */
export function reportRateLimit(options: ReportRateLimitOptions): MiddlewareHandler<{ Variables: Partial<Pick<AuthVariables, 'rateLimit'>> }> {
  const { deps, limiter, clientAddressOf } = options;
  return async (c, next) => {
    await next();
    // Unset only when the credential middleware failed before deciding: count the request by address.
    const decided = c.get('rateLimit');
    const decision = decided === undefined ? await anonymousRateLimit(deps, limiter, clientAddressOf(c)).catch(() => null) : decided;
    setResponseHeaders(c, rateLimitHeaders(decision));
  };
}
