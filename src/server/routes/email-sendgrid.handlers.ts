/**
 * SendGrid's v3 Mail Send API, as an app's `@sendgrid/mail` calls it through
 * a `@sendgrid/client` whose base URL is INBOXKIT_SENDGRID_BASE_URL
 * (`client.setDefaultRequest('baseUrl', url); sgMail.setClient(client)`):
 * `POST /v3/mail/send` makes one email per personalization (its own
 * recipients, subject, substitutions and dynamic template data), checks
 * every recipient with the intake, stores each email in its recipients'
 * inboxes and answers `202` with `X-Message-Id`; in sandbox mode it answers
 * `200` and stores nothing, as SendGrid does. Other paths answer SendGrid's
 * 404.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Reach } from '../auth/caller.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { EmailToCompose } from '../email/compose.ts';
import { SENDGRID_MAX_RECIPIENTS, addressText, parseSendGridSend, sendGridError, sendGridMessageId, substitute } from '../email/sendgrid.ts';
import type { SendGridAnswer, SendGridPersonalization, SendGridSend } from '../email/sendgrid.ts';
import { renderTemplate } from '../email/templates.ts';
import type { TemplateRegistry } from '../email/templates.ts';
import { checkRecipients, composeWithin, deliverEmail, emailReachOf, maxRecipientsOf } from './email-intake.ts';
import type { CheckedSend } from './email-intake.ts';
import { templateOwnerOf } from './email-templates.handlers.ts';

function answer(c: Context<AppEnv>, a: SendGridAnswer): Response {
  for (const [name, value] of Object.entries(a.headers ?? {})) c.header(name, value);
  return a.body === null ? c.body(null, a.status) : c.json(a.body as object, a.status);
}

function isAnswer(value: unknown): value is SendGridAnswer {
  return typeof value === 'object' && value !== null && 'status' in value && 'body' in value;
}

/** The email one personalization makes: the send's fields with its own, its template rendered when registered. */
function emailOf(send: SendGridSend, p: SendGridPersonalization, messageId: string, templates: TemplateRegistry, owner: string): EmailToCompose | SendGridAnswer {
  const email: EmailToCompose = {
    provider: 'sendgrid',
    providerId: messageId,
    from: addressText(send.from),
    to: p.to.map(addressText),
    cc: p.cc.map(addressText),
    replyTo: send.replyTo.map(addressText),
    subject: substitute(p.subject ?? send.subject, p.substitutions) ?? '',
    text: substitute(send.text, p.substitutions),
    html: substitute(send.html, p.substitutions),
    headers: { ...send.headers, ...p.headers },
    attachments: send.attachments,
    tags: send.categories,
    scheduledAt: send.sendAt === undefined ? undefined : new Date(send.sendAt * 1000).toISOString(),
  };
  if (!send.templateId) return email;
  email.template = { id: send.templateId, data: p.dynamicTemplateData ?? p.substitutions };
  const template = templates.get(owner, 'sendgrid', send.templateId);
  if (!template) return email;
  const rendered = renderTemplate(template, p.dynamicTemplateData ?? {});
  if ('error' in rendered) return sendGridError(400, `The template_id ${send.templateId}: ${rendered.error}`, 'template_id');
  return { ...email, subject: p.subject ?? (rendered.subject || email.subject), text: rendered.text ?? email.text, html: rendered.html ?? email.html };
}

/** The recipients' checks of each personalization, or SendGrid's error for a recipient whose inbox fails with 5.1.1 (or a send that reaches no inbox). */
async function checkAll(ctx: ServerContext, reach: Reach, send: SendGridSend): Promise<CheckedSend[] | SendGridAnswer> {
  const checked: CheckedSend[] = [];
  for (const p of send.personalizations) checked.push(await checkRecipients(ctx, 'sendgrid', reach, [...p.to, ...p.cc, ...p.bcc].map((a) => a.email)));
  for (const [index, one] of checked.entries()) {
    const invalid = one.refused.find((check) => check.fault.class === 'invalid');
    if (invalid) return sendGridError(400, `Does not contain a valid address: ${invalid.recipient} was refused (${invalid.fault.code} ${invalid.fault.text}); it is this inbox's delivery fault, clear it to send again.`, `personalizations.${index}.to`);
  }
  if (!checked.some((one) => one.reachedAny)) return sendGridError(400, 'None of the recipients is an active inboxkit inbox this caller may send to; create the inbox first (POST /api/v1/inboxes).', 'personalizations.0.to');
  return checked;
}

/** `POST /v3/mail/send`. */
async function mailSend(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, templates: TemplateRegistry): Promise<SendGridAnswer> {
  const send = parseSendGridSend(await c.req.json().catch(() => null));
  if (isAnswer(send)) return send;
  const total = send.personalizations.reduce((sum, p) => sum + p.to.length + p.cc.length + p.bcc.length, 0);
  const limit = maxRecipientsOf(ctx, SENDGRID_MAX_RECIPIENTS);
  if (total > limit) return sendGridError(400, `The total number of recipients must be no more than ${limit} on this service (--max-recipients).`, 'personalizations');
  const messageId = sendGridMessageId();
  const owner = templateOwnerOf(c);
  const raws: Uint8Array[] = [];
  for (const p of send.personalizations) {
    const email = emailOf(send, p, messageId, templates, owner);
    if (isAnswer(email)) return email;
    const raw = await composeWithin(ctx, email);
    if (!raw) return sendGridError(413, `The email is larger than this service's limit of ${ctx.config.maxMessageBytes} bytes (--max-message-size).`);
    raws.push(raw);
  }
  if (send.sandbox) return { status: 200, body: null };
  const checked = await checkAll(ctx, reach, send);
  if (isAnswer(checked)) return checked;
  for (const [index, one] of checked.entries()) {
    await deliverEmail(c, ctx, reach, { provider: 'sendgrid', envelopeFrom: send.from.email, raw: raws[index] as Uint8Array, providerId: messageId }, one.accepted);
  }
  return { status: 202, body: null, headers: { 'X-Message-Id': messageId } };
}

/** The SendGrid routes, mounted at `/email/sendgrid`. */
export function createSendGridRoutes(ctx: ServerContext, parts: { templates: TemplateRegistry }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/v3/mail/send', async (c) => {
    const reach = emailReachOf(c, ctx);
    if (!reach) return answer(c, sendGridError(401, 'The provided authorization grant is invalid, expired, or revoked: this shared inboxkit service takes an inboxkit API key as the SendGrid API key (sgMail.setApiKey("tm_…")).'));
    return answer(c, await mailSend(c, ctx, reach, parts.templates));
  });
  app.all('*', (c) => answer(c, sendGridError(404, `${c.req.method} ${c.req.path.replace(/^\/email\/sendgrid/, '')} is not served by inboxkit's SendGrid emulation: it serves POST /v3/mail/send (sgMail.send) only.`)));
  return app;
}
