/**
 * The credentials SMS provider SDKs send, read as inboxkit credentials on the
 * provider paths (`/sms/…`): an SDK cannot send `Authorization: Bearer`, so
 * the API key travels where the provider's secret goes (Twilio's auth token
 * in `Authorization: Basic`, the access key id of AWS's signature). Any other
 * provider credential is the provider's own, not inboxkit's: the request is
 * anonymous, which a loopback service accepts and a shared one refuses in the
 * provider's own error shape.
 *
 * @packageDocumentation
 */
import { PROVIDERS } from '../../wire/providers.ts';
import { API_KEY_PREFIX, OPERATOR_TOKEN_PREFIX, SESSION_PREFIX } from './secrets.ts';

/** Where the provider APIs are served, outside `/api/v1` (every row's mount but the API's own). */
export const PROVIDER_MOUNTS: readonly string[] = PROVIDERS.map((row) => row.mount).filter((mount) => !mount.startsWith('/api/'));

/** Whether a path is one of a provider API's. */
export function isProviderPath(path: string): boolean {
  return PROVIDER_MOUNTS.some((mount) => path === mount || path.startsWith(`${mount}/`));
}

function isInboxkitSecret(secret: string): boolean {
  return secret.startsWith(API_KEY_PREFIX) || secret.startsWith(OPERATOR_TOKEN_PREFIX);
}

/**
 * Provider credentials that travel in a header of their own rather than in
 * `Authorization`, by the mount of the provider that reads them (Postmark's
 * server token).
 */
const CREDENTIAL_HEADERS: ReadonlyArray<{ mount: string; header: string }> = [{ mount: '/email/postmark', header: 'x-postmark-server-token' }];

/**
 * The `Authorization` header to resolve for a request: unchanged off the
 * provider paths; on them, `Bearer <key>` when the provider credential
 * carries an inboxkit key (or is `Bearer` with an inboxkit key or session
 * token), else none (anonymous). `header` reads the request's other headers,
 * for the providers whose credential has a header of its own.
 */
export function providerAuthorization(path: string, authorization: string | undefined, header?: (name: string) => string | undefined): string | undefined {
  if (!isProviderPath(path)) return authorization;
  if (authorization === undefined) {
    const own = CREDENTIAL_HEADERS.find((row) => path === row.mount || path.startsWith(`${row.mount}/`));
    const secret = own && header ? header(own.header)?.trim() : undefined;
    return secret !== undefined && isInboxkitSecret(secret) ? `Bearer ${secret}` : undefined;
  }
  const basic = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const password = decoded.slice(decoded.indexOf(':') + 1);
    return isInboxkitSecret(password) ? `Bearer ${password}` : undefined;
  }
  const aws = /\bCredential=([^/,\s]+)\//.exec(authorization);
  if (aws?.[1]) return isInboxkitSecret(aws[1]) ? `Bearer ${aws[1]}` : undefined;
  // A bearer token that is not inboxkit's (Vonage Verify v2's JWT) is the provider's own: anonymous.
  const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)?.[1];
  return bearer !== undefined && (isInboxkitSecret(bearer) || bearer.startsWith(SESSION_PREFIX)) ? authorization : undefined;
}
