/**
 * Defaults shared by the local service, its CLI and the clients that talk to it.
 *
 * @packageDocumentation
 */

/** The HTTP port `inboxkit serve` and `inboxkitServer()` listen on unless told otherwise. */
export const DEFAULT_HTTP_PORT = 8025;

/** The SMTP port `inboxkit serve` and `inboxkitServer()` listen on unless told otherwise. */
export const DEFAULT_SMTP_PORT = 2525;

/**
 * A host as it appears in a URL: the wildcards `0.0.0.0`, `''` and `::` become
 * loopback (what a client on the same machine connects to), IPv6 gets brackets.
 *
 * @example
 * ```ts
 * `http://${urlHost('::1')}:8025`; // 'http://[::1]:8025'
 * ```
 */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
