/**
 * Calls a mount makes on a caller's behalf. A mount such as the MCP server at
 * `/mcp` calls the service's own API over loopback; without more, everything
 * it does for a caller (the streams of its waits, the inboxes it creates, its
 * requests) would be counted against the service's own loopback address, and
 * one caller could use up what every local caller shares. So the service hands
 * each mount request a header that names the caller's client address, sealed
 * with a key that lives only in this process (an HMAC); a request that carries
 * it with a good seal, over loopback, is counted against that address.
 * Anything else (a missing, forged or replayed-from-elsewhere header) is
 * ignored and the socket's address counts, as for any request.
 *
 * @packageDocumentation
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { socketAddressOf } from './client-address.ts';

/** The header that carries the caller's address and its seal: `<address> <seal>`. */
export const ON_BEHALF_HEADER = 'x-inboxkit-on-behalf-of';

/** The request variable the caller's address is kept in once verified. */
export const CLIENT_ADDRESS_VARIABLE = 'clientAddress';

/** The seal of one app: it makes and checks the on-behalf headers of its mounts. */
export interface OnBehalf {
  /** The headers a mount sends on the API calls it makes for a caller at `address`. */
  headersFor(address: string): Record<string, string>;
  /** The caller's address a header names, when its seal is this app's; otherwise null. */
  verify(header: string | undefined): string | null;
}

/** Whether a socket address is a loopback one (the mount's own calls come from this machine). */
function isLoopback(address: string): boolean {
  return /^(?:127\.|::ffff:127\.)/.test(address) || address === '::1';
}

/**
 * Creates the seal of one app, with a key made here and never stored.
 *
 * @example
 * ```ts
 * const onBehalf = createOnBehalf();
 * const headers = onBehalf.headersFor('192.0.2.7'); // { 'x-inboxkit-on-behalf-of': '192.0.2.7 3q2+7w…' }
 * onBehalf.verify(headers['x-inboxkit-on-behalf-of']); // '192.0.2.7'
 * ```
 */
export function createOnBehalf(): OnBehalf {
  const key = randomBytes(32);
  const seal = (address: string) => createHmac('sha256', key).update(address).digest();
  return {
    headersFor: (address) => ({ [ON_BEHALF_HEADER]: `${address} ${seal(address).toString('base64url')}` }),
    verify(header) {
      const match = /^(\S{1,100}) ([A-Za-z0-9_-]{43})$/.exec(header?.trim() ?? '');
      if (!match) return null;
      const [, address, given] = match as unknown as [string, string, string];
      return timingSafeEqual(Buffer.from(given, 'base64url'), seal(address)) ? address : null;
    },
  };
}

/**
 * The middleware that counts a mount's calls against its caller: a verified
 * header over loopback sets the request's client address (read by
 * `clientAddressOf`); the header is never trusted otherwise.
 */
export function onBehalfMiddleware(onBehalf: OnBehalf): MiddlewareHandler {
  return async (c: Context, next) => {
    const header = c.req.header(ON_BEHALF_HEADER);
    if (header !== undefined && isLoopback(socketAddressOf(c))) {
      const address = onBehalf.verify(header);
      if (address !== null) c.set(CLIENT_ADDRESS_VARIABLE as never, address as never);
    }
    await next();
  };
}
