/**
 * The client address of a request, as the rate limit and the caps count it.
 *
 * @packageDocumentation
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/** The remote address of the request's socket; `'local'` for an in-process request (`app.request`). */
export function socketAddressOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // In-process requests (app.request) carry no socket.
    return 'local';
  }
}

/**
 * The address a request is counted against: the caller's, when a mount (the
 * MCP server) made it on that caller's behalf and the service verified it
 * (`on-behalf.ts` sets the `clientAddress` variable); otherwise the socket's.
 */
export function clientAddressOf(c: Context): string {
  const onBehalf = c.get('clientAddress') as unknown;
  return typeof onBehalf === 'string' ? onBehalf : socketAddressOf(c);
}
