/**
 * The provider APIs, as apps' own SDKs call them, outside `/api/v1`: one
 * route factory per row of the provider table (`wire/providers.ts`), each
 * mounted at its row's path and answering in its provider's shapes, errors
 * included. A row without a factory here fails the type check.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { PROVIDERS } from '../../wire/providers.ts';
import type { ProviderId } from '../../wire/providers.ts';
import { createTemplateRegistry } from '../email/templates.ts';
import type { TemplateRegistry } from '../email/templates.ts';
import { createSesConfigurationSets } from '../email/ses-events.ts';
import type { SesConfigurationSets } from '../email/ses-events.ts';
import { createSnsTopics } from '../sms/sns-topics.ts';
import type { SnsTopics } from '../sms/sns-topics.ts';
import { createMailgunRoutes } from './email-mailgun.handlers.ts';
import { createPostmarkRoutes } from './email-postmark.handlers.ts';
import { createResendRoutes } from './email-resend.handlers.ts';
import { createSesRoutes } from './email-ses.handlers.ts';
import { createSendGridRoutes } from './email-sendgrid.handlers.ts';
import { createEmailTemplateRoutes } from './email-templates.handlers.ts';
import { createPlivoRoutes } from './sms-plivo.handlers.ts';
import { twilioUnserved } from './sms-twilio.handlers.ts';
import { createTwilioLedger } from '../sms/twilio-ledger.ts';
import type { TwilioLedger } from '../sms/twilio-ledger.ts';
import { vonageUnserved } from './sms-vonage.handlers.ts';
import { createSnsRoutes } from './sms-sns.handlers.ts';
import { createTwilioVerifyRoutes } from './sms-twilio-verify.handlers.ts';
import { createTwilioRoutes } from './sms-twilio.handlers.ts';
import { createVonageVerifyRoutes } from './sms-vonage-verify.handlers.ts';
import { createVonageRoutes } from './sms-vonage.handlers.ts';

/** What a provider API's path the emulation does not serve answers: the provider's own error shape, naming the call. */
type Unserved = (c: Context<AppEnv>) => Response;

/** What the provider APIs share besides the context: the templates registered with the service, SNS's topics, SES's configuration sets. */
export interface ProviderParts {
  templates: TemplateRegistry;
  /** The texts Twilio's emulation took, for `messages(sid).fetch()` and `messages.list()`. */
  twilioMessages: TwilioLedger;
  snsTopics: SnsTopics;
  sesConfigurationSets: SesConfigurationSets;
}

/** The routes of each provider API; `inboxkit`'s own (`POST /api/v1/sms`) is part of the API's router. */
const PROVIDER_ROUTES: Record<Exclude<ProviderId, 'inboxkit'>, (ctx: ServerContext, parts: ProviderParts) => Hono<AppEnv>> = {
  twilio: createTwilioRoutes,
  'twilio-verify': createTwilioVerifyRoutes,
  sns: createSnsRoutes,
  vonage: createVonageRoutes,
  'vonage-verify': createVonageVerifyRoutes,
  plivo: createPlivoRoutes,
  resend: createResendRoutes,
  sendgrid: createSendGridRoutes,
  postmark: createPostmarkRoutes,
  ses: createSesRoutes,
  mailgun: createMailgunRoutes,
};

/**
 * What each provider's unserved paths answer, by mount; the longest mount
 * that holds a path answers it (Twilio Verify's before Twilio's).
 */
const UNSERVED: Partial<Record<Exclude<ProviderId, 'inboxkit'>, Unserved>> = {
  twilio: twilioUnserved,
  'twilio-verify': twilioUnserved,
  vonage: vonageUnserved,
  'vonage-verify': vonageUnserved,
};

/**
 * Every provider API, each at its row's mount (paths from the service's
 * origin), the email templates at `/email/templates`, then each one's answer
 * to a path it does not serve.
 */
export function createProviderRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const parts: ProviderParts = { templates: createTemplateRegistry(ctx.store, ctx.now), snsTopics: createSnsTopics(), sesConfigurationSets: createSesConfigurationSets(), twilioMessages: createTwilioLedger() };
  app.route('/email/templates', createEmailTemplateRoutes(parts.templates));
  const rows = PROVIDERS.filter((row) => row.id !== 'inboxkit') as Array<(typeof PROVIDERS)[number] & { id: Exclude<ProviderId, 'inboxkit'> }>;
  for (const row of rows) app.route(row.mount, PROVIDER_ROUTES[row.id](ctx, parts));
  for (const row of [...rows].sort((a, b) => b.mount.length - a.mount.length)) {
    const unserved = UNSERVED[row.id];
    if (unserved) app.all(`${row.mount}/*`, unserved);
  }
  return app;
}
