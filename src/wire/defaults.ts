/**
 * Defaults shared by the local service, its CLI and the clients that talk to it.
 *
 * @packageDocumentation
 */

/**
 * The mail domain of the local service's inboxes unless told otherwise
 * (`inboxkit serve --domain`, `inboxkitServer({ domain })`, `startServer({ domains })`).
 *
 * A subdomain of `example.com`, which RFC 2606 reserves for examples and IANA
 * holds: every email validator apps use accepts it (a real top-level domain,
 * unlike `.test` or `.example`, which Joi's `email()` refuses), and mail to it
 * can never reach a real mailbox: `example.com` publishes a null MX (RFC 7505,
 * "accepts no mail") and no name under it has an MX or an address, so a real
 * mail server that is handed such a message by mistake bounces it at once.
 * The subdomain keeps inboxkit's addresses apart from the `…@example.com`
 * users that apps' own seed data and docs use.
 */
export const DEFAULT_DOMAIN = 'inboxkit.example.com';

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

/**
 * Whether a host to bind is a loopback address (or names one), so that only
 * this machine can reach it: `localhost`, `::1` (with or without brackets) or
 * `127.x.y.z`.
 *
 * @example
 * ```ts
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('0.0.0.0'); // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
