/**
 * How the app reads request bodies: a bound on their size, and an empty body
 * sent as JSON read as `{}`.
 *
 * @packageDocumentation
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HttpError } from './errors.ts';

/** Options of {@link requestBodyLimit}. */
export interface RequestBodyLimitOptions {
  /** The largest body accepted, in bytes (`ServerConfig.maxRequestBytes`). */
  maxBytes: number;
}

/**
 * The middleware that refuses a body over `maxBytes` with 413
 * `payload_too_large`. A GET or HEAD is let through unread: it has no body
 * under @hono/node-server, and asking for it would build a whole second
 * Request (headers, abort controller) that an open event stream then keeps.
 */
export function requestBodyLimit(options: RequestBodyLimitOptions): MiddlewareHandler {
  const limitBody = bodyLimit({
    maxSize: options.maxBytes,
    onError: () => {
      throw new HttpError('payload_too_large', `The request body is over the limit of ${options.maxBytes} bytes.`);
    },
  });
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next));
}

/**
 * The middleware that reads an empty body sent as JSON as `{}`: clients often
 * send `Content-Type: application/json` on every request.
 */
export function emptyJsonBody(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.header('content-length') === '0' && /\bjson\b/i.test(c.req.header('content-type') ?? '')) {
      // Hono caches bodies as promises (its type says string); its JSON reader parses the cached text.
      (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve('{}');
    }
    await next();
  };
}
