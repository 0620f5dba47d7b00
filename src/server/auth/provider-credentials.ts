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
 * The `Authorization` header to resolve for a request: unchanged off the
 * provider paths; on them, `Bearer <key>` when the provider credential
 * carries an inboxkit key (or is `Bearer` with an inboxkit key or session
 * token), else none (anonymous).
 */
export function providerAuthorization(path: string, authorization: string | undefined): string | undefined {
  if (!isProviderPath(path) || authorization === undefined) return authorization;
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
