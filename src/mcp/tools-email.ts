/**
 * The tool that tells an agent where to point the app under test: the SMTP
 * listener, and for each provider SDK (email and SMS) the variable
 * `inboxkitServer()` hands the app, its value for this service, and the SDK
 * option it sets; and the line that says how a message came (SMTP, or which
 * provider's API), for the read tools.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { EMAIL_VIA_HEADER, EMAIL_VIA_ID_HEADER, PROVIDERS, providerEnv, providerLabel } from '../wire/providers.ts';
import type { ProviderRow } from '../wire/providers.ts';
import { McpToolError } from './errors.ts';
import type { ToolDefinition } from './tool.ts';

/** The header naming the SMS provider a text came through (its row's id). */
const SMS_VIA_HEADER = 'x-inboxkit-sms';

/** How a message came, in one line: `Came by: SMTP`, or the provider's API and the id it answered. */
export function cameByLine(headers: Readonly<Record<string, string>>): string {
  const email = headers[EMAIL_VIA_HEADER];
  if (email) return `Came by: ${providerLabel(email) ?? email}'s API (email)${headers[EMAIL_VIA_ID_HEADER] ? `, id ${headers[EMAIL_VIA_ID_HEADER]}` : ''}`;
  const sms = headers[SMS_VIA_HEADER];
  if (sms) return `Came by: ${providerLabel(sms) ?? sms} (SMS)`;
  return 'Came by: SMTP';
}

/** The origin of an API root (`http://127.0.0.1:8025/api/v1` → `http://127.0.0.1:8025`). */
function originOf(apiUrl: string): string {
  return apiUrl.replace(/\/api\/v1\/?$/, '').replace(/\/+$/, '');
}

/** The SMTP listener's line, from `GET /service` (its host as the agent reaches the service when it listens on every interface). */
async function smtpLine(apiUrl: string, signal: AbortSignal): Promise<string> {
  const response = await fetch(`${apiUrl.replace(/\/+$/, '')}/service`, { signal }).catch(() => null);
  const listener = response?.ok ? ((await response.json().catch(() => null)) as { data?: { smtp?: { host: string; port: number } | null } } | null)?.data?.smtp : null;
  if (!listener) return 'SMTP: not reported by this service (GET /service); ask its operator for the SMTP host and port.';
  const host = ['0.0.0.0', '::', ''].includes(listener.host) ? new URL(apiUrl).hostname : listener.host;
  return `SMTP: host ${host}, port ${listener.port} (no TLS unless the service offers STARTTLS; any user and password locally)`;
}

function rowLine(row: ProviderRow, env: Record<string, string>): string {
  const value = row.env ? env[row.env] : undefined;
  const setting = row.env ? `${row.env}=${value ?? ''}` : 'no variable of its own';
  const sdk = row.sdk ? `${row.sdk.package}, option ${row.sdk.option}` : 'plain HTTP';
  return `- ${row.label} (${row.channel}): ${setting} — ${sdk}`;
}

/** get_app_settings */
export const getAppSettings: ToolDefinition = {
  name: 'get_app_settings',
  title: 'Where to point the app under test',
  description: [
    'Tells where the app under test should send its mail and texts so that they land in inboxkit inboxes: the SMTP host and port, and for each email provider SDK (Resend, SendGrid, Postmark, Amazon SES, Mailgun) and SMS provider SDK (Twilio, AWS SNS, Vonage, Plivo) the environment variable, its value for this service, and the SDK option it sets.',
    'Use it before starting or configuring the app. Example: get_app_settings({ channel: "email" }) → "- Resend (email): INBOXKIT_RESEND_BASE_URL=http://127.0.0.1:8025/email/resend — resend, option baseUrl …".',
  ].join(' '),
  input: {
    channel: z.enum(['email', 'sms']).optional().describe('Only the providers of this channel: "email" or "sms" (default: both, and SMTP).'),
    provider: z.string().min(1).max(40).optional().describe('Only this provider, by its id, e.g. "resend", "sendgrid", "ses", "twilio".'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(session, args, signal) {
    const provider = args.provider as string | undefined;
    const rows = (PROVIDERS as readonly ProviderRow[]).filter((row) => (args.channel === undefined || row.channel === args.channel) && (provider === undefined || row.id === provider));
    if (provider !== undefined && rows.length === 0) throw new McpToolError(`${provider} is not a provider this service speaks; the ids are ${PROVIDERS.map((row) => row.id).join(', ')}.`);
    const env = providerEnv(originOf(session.client.apiUrl));
    const lines = [
      ...(provider === undefined && args.channel !== 'sms' ? [await smtpLine(session.client.apiUrl, signal)] : []),
      ...(rows.length > 0 ? ['Provider APIs (set the variable in the app\'s environment, and the SDK option from it):', ...rows.map((row) => rowLine(row, env))] : []),
      'Mail sent any of these ways lands in the inbox of its recipient: create one with create_inbox, then wait_for_message.',
    ];
    return lines.join('\n');
  },
};
