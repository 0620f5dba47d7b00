/**
 * Headers the app adds to every response after its handler (or the error
 * mapping) made it.
 *
 * @packageDocumentation
 */
import type { Context, MiddlewareHandler } from 'hono';

/** Sets headers on a finished response, copying it first if its headers are immutable. */
export function setResponseHeaders(c: Context, headers: Record<string, string>): void {
  try {
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  } catch {
    const res = new Response(c.res.body, c.res);
    for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
    c.res = res;
  }
}

/**
 * `X-Content-Type-Options: nosniff` on every answer: a JSON body (an error
 * echoing input included) is never read as HTML or script.
 */
export function noSniff(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    setResponseHeaders(c, { 'X-Content-Type-Options': 'nosniff' });
  };
}
