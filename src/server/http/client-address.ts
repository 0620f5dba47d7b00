/**
 * The client address of a request, as the rate limit and the caps count it.
 *
 * @packageDocumentation
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/** The remote address of the request's socket; `'local'` for an in-process request (`app.request`). */
export function clientAddressOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // In-process requests (app.request) carry no socket.
    return 'local';
  }
}
