/**
 * The provider APIs the service speaks, in one table: every list of
 * providers (the routes the server mounts, the variables `inboxkitServer()`
 * hands the app, the viewer's labels, the values of the `x-inboxkit-sms`
 * header, the metrics' channels, the docs' tables) is made from it or tested
 * against it. Adding a provider starts with its row here (see "Adding a
 * provider" in docs/architecture.md).
 *
 * No imports: the viewer's bundle reads it too.
 *
 * @packageDocumentation
 */

/** One provider API the service emulates. */
export interface ProviderRow {
  /** Its id: the `x-inboxkit-sms` header's value on what it stores, the metrics' `channel` label. */
  readonly id: string;
  /** What it delivers: SMS to phones, or email to inboxes. */
  readonly channel: 'sms' | 'email';
  /** Its name in the viewer and the docs. */
  readonly label: string;
  /** Where the service serves it, from the service's origin (`/sms/twilio`). */
  readonly mount: string;
  /**
   * The variable `inboxkitServer()` hands the app with the URL to point the
   * provider's SDK at (the service's origin + `mount`), or null when the API
   * shares another's variable (Twilio Verify is reached through Twilio's).
   */
  readonly env: string | null;
  /**
   * What the variable holds: the URL (the default), or `host` for an SDK whose
   * option takes a host and path without the scheme (Postmark's `requestHost`:
   * `127.0.0.1:8025/email/postmark`).
   */
  readonly envForm?: 'url' | 'host';
  /** The SDK an app uses (an npm package), and the option that points it here. */
  readonly sdk: { readonly package: string; readonly option: string } | null;
}

/** Every provider API, in the order the docs list them. */
export const PROVIDERS = [
  { id: 'twilio', channel: 'sms', label: 'Twilio Programmable Messaging', mount: '/sms/twilio', env: 'INBOXKIT_TWILIO_BASE_URL', sdk: { package: 'twilio', option: 'the host of each product (see docs/phones.md)' } },
  { id: 'twilio-verify', channel: 'sms', label: 'Twilio Verify', mount: '/sms/twilio/verify', env: null, sdk: { package: 'twilio', option: 'reached through INBOXKIT_TWILIO_BASE_URL' } },
  { id: 'sns', channel: 'sms', label: 'AWS SNS', mount: '/sms/sns', env: 'INBOXKIT_SNS_ENDPOINT', sdk: { package: '@aws-sdk/client-sns', option: 'endpoint' } },
  { id: 'vonage', channel: 'sms', label: 'Vonage SMS API', mount: '/sms/vonage', env: 'INBOXKIT_VONAGE_REST_HOST', sdk: { package: '@vonage/server-sdk', option: 'restHost' } },
  { id: 'vonage-verify', channel: 'sms', label: 'Vonage Verify', mount: '/sms/vonage/verify', env: null, sdk: { package: '@vonage/server-sdk', option: 'apiHost (reached through INBOXKIT_VONAGE_REST_HOST)' } },
  { id: 'plivo', channel: 'sms', label: 'Plivo Messages', mount: '/sms/plivo', env: 'INBOXKIT_PLIVO_BASE_URL', sdk: { package: 'plivo', option: 'baseUrl (see docs/phones.md)' } },
  { id: 'inboxkit', channel: 'sms', label: 'POST /api/v1/sms', mount: '/api/v1/sms', env: 'INBOXKIT_SMS_URL', sdk: null },
  { id: 'resend', channel: 'email', label: 'Resend', mount: '/email/resend', env: 'INBOXKIT_RESEND_BASE_URL', sdk: { package: 'resend', option: 'baseUrl (or RESEND_BASE_URL)' } },
  { id: 'sendgrid', channel: 'email', label: 'SendGrid', mount: '/email/sendgrid', env: 'INBOXKIT_SENDGRID_BASE_URL', sdk: { package: '@sendgrid/mail', option: "a @sendgrid/client with setDefaultRequest('baseUrl', …), given to sgMail.setClient()" } },
  { id: 'postmark', channel: 'email', label: 'Postmark', mount: '/email/postmark', env: 'INBOXKIT_POSTMARK_REQUEST_HOST', envForm: 'host', sdk: { package: 'postmark', option: 'requestHost (with useHttps: false)' } },
  { id: 'ses', channel: 'email', label: 'Amazon SES', mount: '/email/ses', env: 'INBOXKIT_SES_ENDPOINT', sdk: { package: '@aws-sdk/client-sesv2', option: 'endpoint' } },
  { id: 'mailgun', channel: 'email', label: 'Mailgun', mount: '/email/mailgun', env: 'INBOXKIT_MAILGUN_URL', sdk: { package: 'mailgun.js', option: 'url' } },
] as const satisfies readonly ProviderRow[];

/**
 * The header that says which provider's API an email came through (its
 * row's id), on the MIME the service composes for it: the viewer names it.
 */
export const EMAIL_VIA_HEADER = 'x-inboxkit-via';

/** The header with the id the provider's API answered for the email (Resend's `id`, SendGrid's `x-message-id` …). */
export const EMAIL_VIA_ID_HEADER = 'x-inboxkit-via-id';

/** The header with the id of the template an email was sent by (SendGrid's `template_id`, Postmark's alias …). */
export const EMAIL_TEMPLATE_HEADER = 'x-inboxkit-template';

/** The header with the template data of a template send, as JSON (cut at 8 KB). */
export const EMAIL_TEMPLATE_DATA_HEADER = 'x-inboxkit-template-data';

/** A provider's id. */
export type ProviderId = (typeof PROVIDERS)[number]['id'];

/** Every provider's id. */
export const PROVIDER_IDS: readonly ProviderId[] = PROVIDERS.map((p) => p.id);

/** The row of a provider. */
export function providerRow(id: ProviderId): ProviderRow {
  return PROVIDERS.find((p) => p.id === id) as ProviderRow;
}

/** The label of a provider id (as stored in a message's header), or null for an id the table does not have. */
export function providerLabel(id: string): string | null {
  return PROVIDERS.find((p) => p.id === id)?.label ?? null;
}

/** The variables that point each provider's SDK at a service whose origin is `baseUrl`. */
export function providerEnv(baseUrl: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const row of PROVIDERS as readonly ProviderRow[]) {
    if (row.env) env[row.env] = row.envForm === 'host' ? `${baseUrl.replace(/^[a-z]+:\/\//i, '')}${row.mount}` : `${baseUrl}${row.mount}`;
  }
  return env;
}
