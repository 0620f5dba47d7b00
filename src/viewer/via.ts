/**
 * How an email came, as the viewer says it: SMTP, or the provider API it
 * was sent through (the headers the service put on the MIME it composed).
 *
 * @packageDocumentation
 */
import { EMAIL_TEMPLATE_HEADER, EMAIL_VIA_HEADER, EMAIL_VIA_ID_HEADER, providerLabel } from '../wire/providers.ts';

/** How an email came: `SMTP`, or the provider API's label, the id it answered and its template (`Resend API, id …, template welcome`). */
export function emailVia(message: { headers: Record<string, string> }): string {
  const provider = message.headers[EMAIL_VIA_HEADER];
  if (!provider) return 'SMTP';
  const id = message.headers[EMAIL_VIA_ID_HEADER];
  const template = message.headers[EMAIL_TEMPLATE_HEADER];
  return [`${providerLabel(provider) ?? provider} API`, id ? `id ${id}` : null, template ? `template ${template}` : null].filter(Boolean).join(', ');
}
