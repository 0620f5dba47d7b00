/**
 * The client address of a request, as the rate limit and the caps count it.
 *
 * @packageDocumentation
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';

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

/** An address without the IPv4-in-IPv6 prefix a dual-stack socket gives (`::ffff:127.0.0.1`). */
const plain = (address: string): string => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/** Whether a socket's peer address is one of `trusted` (the balancers of `--trust-proxy`), IPv4-mapped IPv6 or not. */
export function trustedPeer(trusted: readonly string[]): (address: string | undefined) => boolean {
  const peers = new Set(trusted.map(plain));
  return (address) => address !== undefined && peers.has(plain(address));
}

/**
 * The middleware that believes a trusted balancer (`--trust-proxy ADDR`):
 * when the socket's peer is one of `trusted`, the last `X-Forwarded-For`
 * entry (the address the balancer saw; earlier entries are the client's own
 * say) becomes the request's client address, so that caps and rate limits
 * count the client. From any other peer the header is ignored.
 *
 * @param trusted - The balancers' addresses; empty: the header is never read.
 */
export function trustedProxyMiddleware(trusted: readonly string[]): MiddlewareHandler {
  const peers = new Set(trusted.map(plain));
  return async (c, next) => {
    if (peers.size > 0 && peers.has(plain(socketAddressOf(c)))) {
      const last = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
      if (last !== undefined && /^[0-9a-fA-F:.]{2,45}$/.test(last)) c.set('clientAddress' as never, plain(last) as never);
    }
    await next();
  };
}
