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
import type { RecipientCheck } from '../intake/types.ts';
import { SENDGRID_EVENT_TYPES, sendGridEvent, sendGridSignatureHeaders, sendGridSigningKey } from '../email/sendgrid-webhooks.ts';
import type { SendGridWebhookSettings } from '../email/sendgrid-webhooks.ts';
import { renderTemplate } from '../email/templates.ts';
import type { TemplateRegistry } from '../email/templates.ts';
import { checkRecipients, composeWithin, deliverEmail, emailReachOf, maxRecipientsOf } from './email-intake.ts';
import type { CheckedSend } from './email-intake.ts';
import { templateOwnerOf } from './email-templates.handlers.ts';
import { isAnswer } from '../email/answer.ts';

/** Each caller's Event Webhook settings, on this node. */
type SettingsBook = Map<string, SendGridWebhookSettings>;

/** The events of one recipient's check: processed, then delivered, bounce (another 5xx) or dropped (5.7.1). */
function eventsOf(check: RecipientCheck): Array<{ event: string; reason?: string }> {
  if (check.verdict === 'undeliverable') return [{ event: 'processed' }, { event: 'bounce', reason: `${check.fault.code} ${check.fault.text}` }];
  if (check.verdict === 'refused') return [{ event: 'processed' }, { event: 'dropped', reason: `${check.fault.code} ${check.fault.text}` }];
  return [{ event: 'processed' }, { event: 'delivered' }];
}

/** Posts a send's events to the caller's Event Webhook, signed when signing is on; a failure is logged, never retried. */
function postEvents(ctx: ServerContext, owner: string, settings: SendGridWebhookSettings | undefined, checked: readonly CheckedSend[], messageId: string, categories: readonly string[]): void {
  if (!settings?.enabled || settings.url === '') return;
  const events = checked.flatMap((one) => one.checks.flatMap((check) => eventsOf(check).filter((e) => settings.events.has(e.event)).map((e) => sendGridEvent(e.event, check.recipient, messageId, categories, e.reason))));
  if (events.length === 0) return;
  const body = JSON.stringify(events);
  const headers = { 'content-type': 'application/json', ...(settings.key ? sendGridSignatureHeaders(settings.key.privateKey, body) : {}) };
  ctx.webhooks.postBody(owner, settings.url, body, headers).catch((error: unknown) => ctx.logger.warn({ err: error, url: settings.url, messageId }, 'email: the SendGrid Event Webhook failed'));
}

/** The settings of the caller, made on first use (disabled, every event). */
function settingsOf(book: SettingsBook, owner: string): SendGridWebhookSettings {
  const settings = book.get(owner) ?? { enabled: false, url: '', events: new Set<string>(SENDGRID_EVENT_TYPES), key: null };
  book.set(owner, settings);
  return settings;
}

/** `PATCH /v3/user/webhooks/event/settings`: the URL (loopback only), whether it is on, and which events it takes. */
async function patchSettings(c: Context<AppEnv>, book: SettingsBook, problemOf: (url: string) => string | null): Promise<SendGridAnswer> {
  const body = ((await c.req.json().catch(() => null)) ?? {}) as Record<string, unknown>;
  const settings = settingsOf(book, templateOwnerOf(c));
  if (typeof body.url === 'string') {
    const problem = problemOf(body.url);
    if (problem) return sendGridError(400, `invalid url: ${problem}`, 'url');
    settings.url = body.url;
  }
  if (typeof body.enabled === 'boolean') settings.enabled = body.enabled;
  for (const type of SENDGRID_EVENT_TYPES) {
    if (typeof body[type] !== 'boolean' || type === 'processed') continue;
    if (body[type]) settings.events.add(type);
    else settings.events.delete(type);
  }
  return { status: 200, body: { enabled: settings.enabled, url: settings.url, ...Object.fromEntries(SENDGRID_EVENT_TYPES.map((t) => [t, settings.events.has(t)])) } };
}

/** `PATCH /v3/user/webhooks/event/settings/signed`: turns signing on (a key made once) or off; answers the public key. */
async function patchSigned(c: Context<AppEnv>, book: SettingsBook): Promise<SendGridAnswer> {
  const body = ((await c.req.json().catch(() => null)) ?? {}) as Record<string, unknown>;
  const settings = settingsOf(book, templateOwnerOf(c));
  if (body.enabled === true) settings.key ??= sendGridSigningKey();
  if (body.enabled === false) settings.key = null;
  return { status: 200, body: { public_key: settings.key?.publicKey ?? '' } };
}

function answer(c: Context<AppEnv>, a: SendGridAnswer): Response {
  for (const [name, value] of Object.entries(a.headers ?? {})) c.header(name, value);
  return a.body === null ? c.body(null, a.status) : c.json(a.body as object, a.status);
}


/** The email one personalization makes: the send's fields with its own, its template rendered when registered. */
async function emailOf(send: SendGridSend, p: SendGridPersonalization, messageId: string, templates: TemplateRegistry, owner: string): Promise<EmailToCompose | SendGridAnswer> {
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
  const template = await templates.get(owner, 'sendgrid', send.templateId);
  if (!template) return email;
  const rendered = await renderTemplate(template, p.dynamicTemplateData ?? {});
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
async function mailSend(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, templates: TemplateRegistry, book: SettingsBook): Promise<SendGridAnswer> {
  const send = parseSendGridSend(await c.req.json().catch(() => null));
  if (isAnswer(send)) return send;
  const total = send.personalizations.reduce((sum, p) => sum + p.to.length + p.cc.length + p.bcc.length, 0);
  const limit = maxRecipientsOf(ctx, SENDGRID_MAX_RECIPIENTS);
  if (total > limit) return sendGridError(400, `The total number of recipients must be no more than ${limit} on this service (--max-recipients).`, 'personalizations');
  const messageId = sendGridMessageId();
  const owner = templateOwnerOf(c);
  const raws: Uint8Array[] = [];
  for (const p of send.personalizations) {
    const email = await emailOf(send, p, messageId, templates, owner);
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
  postEvents(ctx, owner, book.get(owner), checked, messageId, send.categories);
  return { status: 202, body: null, headers: { 'X-Message-Id': messageId } };
}

/** The SendGrid routes, mounted at `/email/sendgrid`. */
export function createSendGridRoutes(ctx: ServerContext, parts: { templates: TemplateRegistry }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const book: SettingsBook = new Map();
  const refused = sendGridError(401, 'The provided authorization grant is invalid, expired, or revoked: this shared inboxkit service takes an inboxkit API key as the SendGrid API key (sgMail.setApiKey("tm_…")).');
  app.post('/v3/mail/send', async (c) => {
    const reach = emailReachOf(c, ctx);
    if (!reach) return answer(c, refused);
    return answer(c, await mailSend(c, ctx, reach, parts.templates, book));
  });
  app.patch('/v3/user/webhooks/event/settings', async (c) => answer(c, emailReachOf(c, ctx) ? await patchSettings(c, book, ctx.webhooks.problemOf) : refused));
  app.patch('/v3/user/webhooks/event/settings/signed', async (c) => answer(c, emailReachOf(c, ctx) ? await patchSigned(c, book) : refused));
  app.all('*', (c) => answer(c, sendGridError(404, `${c.req.method} ${c.req.path.replace(/^\/email\/sendgrid/, '')} is not served by inboxkit's SendGrid emulation: it serves POST /v3/mail/send (sgMail.send), and PATCH /v3/user/webhooks/event/settings and …/settings/signed (the Event Webhook).`)));
  return app;
}
