/**
 * DNS-rebinding defence, as Vite and webpack-dev-server do it: a service bound
 * to loopback answers only requests whose `Host` is a loopback name (or one the
 * operator allowed), and accepts the operator token only when `Host` and
 * `Origin` (when sent) are loopback. A page on `evil.example` that rebinds its
 * name to 127.0.0.1 sends `Host: evil.example`, and is refused.
 *
 * Only the name is compared, not the port: a browser always sends the port it
 * connects to, so the name is what a rebinding page cannot choose, and a port
 * forward (`ssh -L 9000:localhost:8025`) keeps a loopback name on another port.
 *
 * @packageDocumentation
 */
import type { Context, MiddlewareHandler } from 'hono';
import { OPERATOR_TOKEN_PREFIX } from './secrets.ts';
import { HttpError } from '../http/errors.ts';

/** Whether a host name (no port; IPv6 in brackets or not) is loopback. */
export function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return n === 'localhost' || n.endsWith('.localhost') || n === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(n);
}

/** Splits `Host` (`name`, `name:port`, `[v6]:port`) into its name and port (null when absent). */
export function splitHost(host: string): { name: string; port: string | null } {
  const h = host.trim().toLowerCase();
  const v6 = /^(\[[^\]]*\])(?::(\d+))?$/.exec(h);
  if (v6) return { name: v6[1] as string, port: v6[2] ?? null };
  const colon = h.lastIndexOf(':');
  return colon === -1 ? { name: h, port: null } : { name: h.slice(0, colon), port: h.slice(colon + 1) };
}

/** Whether `host` is allowed: a loopback name, or an allowed entry (a name allows any port, `name:port` that port). */
export function isAllowedHost(host: string, allowedHosts: readonly string[]): boolean {
  const { name, port } = splitHost(host);
  if (isLoopbackName(name)) return true;
  return allowedHosts.includes(name) || (port !== null && allowedHosts.includes(`${name}:${port}`));
}

/** Whether `Origin` is an http(s) origin on a loopback name. */
function loopbackOrigin(origin: string): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackName(url.hostname);
}

/**
 * The host check, for a service bound to loopback (pass `bound: false` on
 * another address: it then checks nothing, since the operator token is
 * refused there at start). Runs before credentials are read.
 *
 * @param allowedHosts - Extra `Host` names (`--allowed-host`), lower-cased.
 * @param overNetwork - Whether a request came over a socket (in-process requests are not checked).
 */
export function createHostCheck(bound: boolean, allowedHosts: readonly string[], overNetwork: (c: Context) => boolean): MiddlewareHandler {
  return async (c, next) => {
    // An in-process request (`app.request`) came through no socket, so no page could have rebound a name to it.
    if (!bound || !overNetwork(c)) return next();
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!isAllowedHost(host, allowedHosts)) {
      throw new HttpError(
        'host_not_allowed',
        `Host "${host.slice(0, 100)}" is not allowed: this service is bound to loopback and answers only localhost, 127.0.0.1 or [::1] (a guard against DNS rebinding). ` +
          'For a port forward under another name, start it with --allowed-host NAME.',
      );
    }
    if (new RegExp(`^Bearer\\s+${OPERATOR_TOKEN_PREFIX}`, 'i').test(c.req.header('authorization') ?? '')) {
      const origin = c.req.header('origin');
      if (!isLoopbackName(splitHost(host).name) || (origin !== undefined && !loopbackOrigin(origin))) {
        throw new HttpError(
          'host_not_allowed',
          'The operator token is accepted only from a loopback page: Host and Origin must be localhost, 127.0.0.1 or [::1]. Open the viewer URL the service printed, or use an API key.',
        );
      }
    }
    return next();
  };
}
