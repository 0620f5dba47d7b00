/**
 * Defaults shared by the local service, its CLI and the clients that talk to it.
 *
 * @packageDocumentation
 */

/** The HTTP port `inboxkit serve` and `inboxkitServer()` listen on unless told otherwise. */
export const DEFAULT_HTTP_PORT = 8025;

/** The SMTP port `inboxkit serve` and `inboxkitServer()` listen on unless told otherwise. */
export const DEFAULT_SMTP_PORT = 2525;
