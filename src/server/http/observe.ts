/**
 * The request metrics' middleware: each app request's route pattern (the
 * route it matched, `/api/v1/inboxes/:id`, so the labels are bounded by the
 * route table; `unmatched` for a 404), method, status and time to the
 * response head.
 *
 * @packageDocumentation
 */
import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';

/** Told of each request answered by the app. */
export type RequestObserver = (route: string, method: string, status: number, seconds: number) => void;

/** Methods counted by name; any other is counted as `other` (a bound on the label's values). */
export const COUNTED_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const METHODS = new Set(COUNTED_METHODS);

/** The middleware; put it first, so that it times every other step. */
export function observeRequests(observe: RequestObserver): MiddlewareHandler {
  return async (c, next) => {
    const began = performance.now();
    try {
      await next();
    } finally {
      const route = matchedRoutes(c).findLast((r) => r.method !== 'ALL')?.path ?? 'unmatched';
      const method = METHODS.has(c.req.method) ? c.req.method : 'other';
      observe(route, method, c.res.status, (performance.now() - began) / 1000);
    }
  };
}
