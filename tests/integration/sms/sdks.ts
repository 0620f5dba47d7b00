/**
 * The provider SDKs as an app configures them to reach the local service:
 * the one change each needs, as docs/phones.md shows it.
 */
import twilio from 'twilio';

/**
 * A `twilio` client whose requests go to `base` (`TWILIO_API_BASE`): the
 * SDK's own extension point, a custom `httpClient`, rewrites
 * `https://<product>.twilio.com/…` to `<base>/<product>/…`.
 */
export function twilioAt(base: string, accountSid: string, authToken: string): twilio.Twilio {
  class InboxkitRequestClient extends twilio.RequestClient {
    override request<T>(opts: Parameters<twilio.RequestClient['request']>[0]) {
      return super.request<T>({ ...opts, uri: opts.uri.replace(/^https:\/\/([a-z]+)\.twilio\.com/, `${base}/$1`) } as never);
    }
  }
  return twilio(accountSid, authToken, { httpClient: new InboxkitRequestClient() });
}

/** A made-up account sid of the shape the SDK checks (AC + 32 hex digits). */
export const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
/** A made-up auth token. */
export const AUTH_TOKEN = 'test-auth-token-0123456789abcdef';
