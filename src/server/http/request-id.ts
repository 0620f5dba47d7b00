/**
 * The request id: made for every request before anything else runs, readable
 * as `c.var.requestId` (error bodies and logs name it) and echoed in a header.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { setResponseHeaders } from './response-headers.ts';

/** The Hono environment of a request that has an id. */
export interface RequestIdEnv {
  Variables: {
    /** Id of this request, echoed in `X-Request-Id` and in 500 bodies. */
    requestId: string;
  };
}

/** Options of {@link requestId}. */
export interface RequestIdOptions {
  /**
   * The response header that carries the id.
   * @defaultValue `X-Request-Id`
   */
  headerName?: string;
  /**
   * Makes a new id.
   * @defaultValue a random UUID
   */
  generator?: () => string;
}

/**
 * The middleware that gives each request its id (`c.var.requestId`) and adds
 * it to the response, an error's included.
 */
export function requestId(options: RequestIdOptions = {}): MiddlewareHandler<RequestIdEnv> {
  const headerName = options.headerName ?? 'X-Request-Id';
  const generator = options.generator ?? randomUUID;
  return async (c, next) => {
    const id = generator();
    c.set('requestId', id);
    await next();
    setResponseHeaders(c, { [headerName]: id });
  };
}

/** The id {@link requestId} gave this request, if it ran. */
export function requestIdOf(c: Context): string | undefined {
  return c.get('requestId') as string | undefined;
}
