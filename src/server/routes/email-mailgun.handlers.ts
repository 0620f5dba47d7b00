/**
 * Mailgun's Messages API, as an app's `mailgun.js` calls it with
 * `new Mailgun(FormData).client({ username: 'api', key, url: process.env.INBOXKIT_MAILGUN_URL })`:
 * `POST /v3/{domain}/messages` (`messages.create()` with form fields) and
 * `POST /v3/{domain}/messages.mime` (a MIME `message`) check every
 * recipient with the intake, store the email in each recipient's inbox and
 * answer Mailgun's `{ id, message }`, or Mailgun's `{ message }` error.
 * `o:testmode` is answered and nothing delivered, as Mailgun does. Each
 * recipient's event (`delivered`, `failed`) is posted to the domain's
 * webhooks (`email-mailgun-webhooks.handlers.ts`). Other paths answer
 * Mailgun's 404.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Reach } from '../auth/caller.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { stampRaw } from '../email/compose.ts';
import type { EmailToCompose } from '../email/compose.ts';
import { MAILGUN_MAX_RECIPIENTS, filesOf, first, headersOf, jsonField, mailgunError, mailgunMessageId, recipientSubstitute, recipientsOf, values } from '../email/mailgun.ts';
import type { MailgunAnswer, MailgunForm } from '../email/mailgun.ts';
import { renderTemplate } from '../email/templates.ts';
import type { TemplateRegistry } from '../email/templates.ts';
import { checkRecipients, composeWithin, deliverEmail, emailReachOf, maxRecipientsOf } from './email-intake.ts';
import { templateOwnerOf } from './email-templates.handlers.ts';
import { isAnswer } from '../email/answer.ts';
import { mailgunEvent, webhookIdOf } from '../email/mailgun-webhooks.ts';
import type { MailgunDomainHooks, MailgunOutcome } from '../email/mailgun-webhooks.ts';
import type { RecipientCheck } from '../intake/types.ts';
import { createMailgunWebhookRoutes } from './email-mailgun-webhooks.handlers.ts';

function answer(c: Context<AppEnv>, a: MailgunAnswer): Response {
  return typeof a.body === 'string' ? c.text(a.body, a.status) : c.json(a.body as object, a.status);
}


/** One email of a send (one per `to` recipient with `recipient-variables`), with its recipients. */
interface Unit {
  raw: Uint8Array;
  recipients: string[];
}

/** What a send is made in. */
interface MailgunScope {
  reach: Reach;
  templates: TemplateRegistry;
  owner: string;
  domain: string;
  /** The webhooks of the caller's domain, or null without any. */
  hooks: MailgunDomainHooks | null;
  /** The node's webhook sender and its log. */
  sender: ServerContext['webhooks'];
  log: ServerContext['logger'];
}

/** What a send's events say of it. */
interface Sent {
  id: string;
  envelopeFrom: string;
  subject: string;
  tags: string[];
}

/** A recipient's outcome as Mailgun's events report it, or null for one the service does not hold. */
function outcomeOf(check: RecipientCheck): MailgunOutcome | null {
  if (check.verdict === 'accepted') return { event: 'delivered' };
  if (check.verdict === 'unknown') return null;
  const message = `${check.fault.code} ${check.fault.text}`;
  if (check.verdict === 'refused') return { event: 'failed', severity: 'permanent', reason: 'suppress-bounce', code: 605, message: `Not delivering to previously bounced address (inboxkit: the inbox's fault, ${message})` };
  return { event: 'failed', severity: check.fault.class === 'temporary' ? 'temporary' : 'permanent', reason: check.fault.class === 'temporary' ? 'generic' : 'bounce', code: check.fault.code, message };
}

/** Posts each recipient's event to the URLs of its webhook id; a failure is logged, never retried. */
function postEvents(scope: MailgunScope, sent: Sent, checks: readonly RecipientCheck[]): void {
  const hooks = scope.hooks;
  if (!hooks) return;
  for (const check of checks) {
    const outcome = outcomeOf(check);
    if (!outcome) continue;
    for (const url of hooks.urls.get(webhookIdOf(outcome)) ?? []) {
      const body = mailgunEvent({ messageId: sent.id, recipient: check.recipient, from: sent.envelopeFrom, subject: sent.subject, tags: sent.tags }, outcome, hooks.signingKey);
      scope.sender.postBody(scope.owner, url, JSON.stringify(body), { 'content-type': 'application/json' }).catch((error: unknown) => scope.log.warn({ err: error, url, messageId: sent.id }, 'email: a Mailgun webhook failed'));
    }
  }
}

/** Checks every unit's recipients and stores each: Mailgun's answer. */
async function deliverUnits(c: Context<AppEnv>, ctx: ServerContext, scope: MailgunScope, sent: Sent, units: Unit[], testMode: boolean): Promise<MailgunAnswer> {
  const { id, envelopeFrom } = sent;
  const total = units.reduce((sum, unit) => sum + unit.recipients.length, 0);
  const limit = maxRecipientsOf(ctx, MAILGUN_MAX_RECIPIENTS);
  if (total > limit) return mailgunError(400, `Too many recipients: at most ${limit} on this service (--max-recipients).`);
  if (units.some((unit) => unit.raw.byteLength > ctx.config.maxMessageBytes)) return mailgunError(413, `The message is larger than this service's limit of ${ctx.config.maxMessageBytes} bytes (--max-message-size).`);
  const queued = { status: 200 as const, body: { id: `<${id}>`, message: 'Queued. Thank you.' } };
  if (testMode) return queued;
  const checked = await Promise.all(units.map((unit) => checkRecipients(ctx, 'mailgun', scope.reach, unit.recipients)));
  const invalid = checked.flatMap((one) => one.refused).find((check) => check.fault.class === 'invalid');
  if (invalid) return mailgunError(400, `to parameter is not a valid address: ${invalid.recipient} was refused (${invalid.fault.code} ${invalid.fault.text}); it is this inbox's delivery fault, clear it to send again.`);
  if (!checked.some((one) => one.reachedAny)) return mailgunError(400, 'None of the recipients is an active inboxkit inbox this caller may send to; create the inbox first (POST /api/v1/inboxes).');
  for (const [index, unit] of units.entries()) {
    await deliverEmail(c, ctx, scope.reach, { provider: 'mailgun', envelopeFrom, raw: unit.raw, providerId: id }, checked[index]?.accepted ?? []);
  }
  postEvents(scope, sent, checked.flatMap((one) => one.checks));
  return queued;
}

/** The email of a form: its fields, its template rendered when registered. */
async function emailOf(form: MailgunForm, scope: MailgunScope, id: string): Promise<EmailToCompose | MailgunAnswer> {
  const templateName = first(form, 'template');
  const variables = jsonField(form, 't:variables');
  if (isAnswer(variables)) return variables;
  const email: EmailToCompose = {
    provider: 'mailgun',
    providerId: `<${id}>`,
    from: first(form, 'from') ?? '',
    to: values(form, 'to'),
    cc: values(form, 'cc'),
    replyTo: [],
    subject: first(form, 'subject') ?? '',
    text: first(form, 'text'),
    html: first(form, 'html'),
    headers: headersOf(form),
    attachments: [...(await filesOf(form, 'attachment')), ...(await filesOf(form, 'inline'))],
    tags: values(form, 'o:tag'),
    scheduledAt: first(form, 'o:deliverytime'),
  };
  if (!templateName) return email;
  const data = variables ?? JSON.parse(email.headers['X-Mailgun-Variables'] ?? '{}');
  email.template = { id: templateName, data };
  const template = await scope.templates.get(scope.owner, 'mailgun', templateName);
  if (!template) return email;
  const rendered = await renderTemplate(template, data);
  if ('error' in rendered) return mailgunError(400, `template ${templateName}: ${rendered.error}`);
  return { ...email, subject: email.subject || rendered.subject, html: rendered.html ?? email.html, text: rendered.text ?? email.text };
}

/** Checks the required fields of a form send, as Mailgun names them. */
function missingField(form: MailgunForm): MailgunAnswer | null {
  if (!first(form, 'from')) return mailgunError(400, 'from parameter is missing');
  if (values(form, 'to').length === 0) return mailgunError(400, 'to parameter is missing');
  if (!first(form, 'template') && !first(form, 'subject')) return mailgunError(400, 'subject parameter is missing');
  if (!first(form, 'text') && !first(form, 'html') && !first(form, 'template')) return mailgunError(400, "Need at least one of 'text', 'html' or 'template' parameters specified");
  return null;
}

/** `POST /v3/{domain}/messages`. */
async function sendMessage(c: Context<AppEnv>, ctx: ServerContext, scope: MailgunScope, form: MailgunForm): Promise<MailgunAnswer> {
  const missing = missingField(form);
  if (missing) return missing;
  const fields = { to: recipientsOf(form, 'to'), cc: recipientsOf(form, 'cc'), bcc: recipientsOf(form, 'bcc'), from: recipientsOf(form, 'from') };
  for (const part of Object.values(fields)) if (isAnswer(part)) return part;
  const recipientVariables = jsonField(form, 'recipient-variables');
  if (isAnswer(recipientVariables)) return recipientVariables;
  const id = mailgunMessageId(scope.domain);
  const email = await emailOf(form, scope, id);
  if (isAnswer(email)) return email;
  const [to, cc, bcc] = [fields.to, fields.cc, fields.bcc] as string[][];
  const units: Unit[] = [];
  if (recipientVariables) {
    for (const address of to ?? []) {
      const mine = recipientVariables[address] as Record<string, unknown> | undefined;
      const own = { ...email, to: [address], cc: [], subject: recipientSubstitute(email.subject, mine) ?? '', text: recipientSubstitute(email.text, mine), html: recipientSubstitute(email.html, mine) };
      units.push({ raw: (await composeWithin(ctx, own)) ?? new Uint8Array(ctx.config.maxMessageBytes + 1), recipients: [address] });
    }
  } else {
    units.push({ raw: (await composeWithin(ctx, email)) ?? new Uint8Array(ctx.config.maxMessageBytes + 1), recipients: [...(to ?? []), ...(cc ?? []), ...(bcc ?? [])] });
  }
  return deliverUnits(c, ctx, scope, { id, envelopeFrom: (fields.from as string[])[0] ?? '', subject: email.subject, tags: email.tags }, units, isYes(first(form, 'o:testmode')));
}

function isYes(value: string | undefined): boolean {
  return value === 'yes' || value === 'true' || value === 'True';
}

/** `POST /v3/{domain}/messages.mime`: the MIME `message` as sent, to the `to` recipients. */
async function sendMime(c: Context<AppEnv>, ctx: ServerContext, scope: MailgunScope, form: MailgunForm): Promise<MailgunAnswer> {
  const to = recipientsOf(form, 'to');
  if (isAnswer(to)) return to;
  if (to.length === 0) return mailgunError(400, 'to parameter is missing');
  const message = form.message;
  const file = Array.isArray(message) ? message[0] : message;
  if (file === undefined) return mailgunError(400, 'message parameter is missing');
  const bytes = typeof file === 'string' ? new Uint8Array(Buffer.from(file)) : new Uint8Array(await file.arrayBuffer());
  const id = mailgunMessageId(scope.domain);
  const from = /^from:.*?([^\s<>"]+@[^\s<>"]+)/im.exec(Buffer.from(bytes.subarray(0, 64 * 1024)).toString('utf8'))?.[1] ?? '';
  return deliverUnits(c, ctx, scope, { id, envelopeFrom: from, subject: '', tags: [] }, [{ raw: stampRaw(bytes, 'mailgun', `<${id}>`), recipients: to }], isYes(first(form, 'o:testmode')));
}

/** The Mailgun routes, mounted at `/email/mailgun`. */
export function createMailgunRoutes(ctx: ServerContext, parts: { templates: TemplateRegistry }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const serve = (send: (c: Context<AppEnv>, ctx: ServerContext, scope: MailgunScope, form: MailgunForm) => Promise<MailgunAnswer>) => async (c: Context<AppEnv>) => {
    const reach = emailReachOf(c, ctx);
    if (!reach) return answer(c, { status: 401, body: 'Forbidden' });
    const form = (await c.req.parseBody({ all: true }).catch(() => null)) as MailgunForm | null;
    if (!form) return answer(c, mailgunError(400, 'The request body is not a form (mailgun.js sends multipart/form-data).'));
    const [owner, domain] = [templateOwnerOf(c), c.req.param('domain') ?? ''];
    return answer(c, await send(c, ctx, { reach, templates: parts.templates, owner, domain, hooks: hooks.get(`${owner}\n${domain}`) ?? null, sender: ctx.webhooks, log: ctx.logger }, form));
  };
  const hooks = new Map<string, MailgunDomainHooks>();
  app.route('/', createMailgunWebhookRoutes(ctx, hooks));
  app.post('/v3/:domain/messages', serve(sendMessage));
  app.post('/v3/:domain/messages.mime', serve(sendMime));
  app.all('*', (c) => answer(c, mailgunError(404, `${c.req.method} ${c.req.path.replace(/^\/email\/mailgun/, '')} is not served by inboxkit's Mailgun emulation: it serves POST /v3/{domain}/messages (messages.create), /v3/{domain}/messages.mime, /v3/domains/{domain}/webhooks (webhooks.create, list, destroy) and GET /v5/accounts/http_signing_key.`)));
  return app;
}
