/**
 * Amazon SES v2, as an app's `@aws-sdk/client-sesv2` calls it with
 * `new SESv2Client({ endpoint: process.env.INBOXKIT_SES_ENDPOINT, … })`:
 * `SendEmail` (`POST /v2/email/outbound-emails`, Simple, Raw or Template
 * content), `SendBulkEmail` (`POST /v2/email/outbound-bulk-emails`) and
 * `CreateEmailTemplate` (`POST /v2/email/templates`, which registers the
 * template the service renders) check every recipient with the intake,
 * store each email in its recipients' inboxes and answer SES's
 * `{ MessageId }`, or SES's named exception. Other paths answer SES's 404.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Reach } from '../auth/caller.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { stampRaw } from '../email/compose.ts';
import type { EmailToCompose } from '../email/compose.ts';
import { SES_MAX_BULK, destinationAddresses, destinationOf, rawFrom, rawRecipients, sesError, sesMessageId, simpleOf, templateDataOf } from '../email/ses.ts';
import type { SesAnswer, SesDestination } from '../email/ses.ts';
import { SES_V1_ACTIONS, v1Answer, v1Unserved, v2EventDestinationOf, v2SendOf, v2TemplateOf } from '../email/ses-v1.ts';
import type { QueryForm } from '../email/ses-v1.ts';
import { parseTemplate, renderTemplate } from '../email/templates.ts';
import type { TemplateRegistry } from '../email/templates.ts';
import { checkRecipients, composeWithin, deliverEmail, emailReachOf } from './email-intake.ts';
import { templateOwnerOf } from './email-templates.handlers.ts';
import { configurationSetProblem, createConfigurationSet, createEventDestination, publishSesEvents } from './email-ses-events.handlers.ts';
import type { SesEventScope } from './email-ses-events.handlers.ts';
import type { ProviderParts } from './sms.handlers.ts';
import { isAnswer } from '../email/answer.ts';

type Json = Record<string, unknown>;

function answer(c: Context<AppEnv>, a: SesAnswer): Response {
  if (a.errorType) c.header('x-amzn-ErrorType', a.errorType);
  return c.json(a.body as object, a.status);
}


/** What a request sends in: the caller's reach, templates, configuration sets and topics. */
interface SesScope {
  reach: Reach;
  templates: TemplateRegistry;
  owner: string;
  events: SesEventScope;
}

/** What the SES routes share with the other provider APIs. */
type SesParts = Pick<ProviderParts, 'templates' | 'snsTopics' | 'sesConfigurationSets'>;

/** A message ready to check and deliver. */
interface SesMessage {
  raw: Uint8Array;
  recipients: string[];
  envelopeFrom: string;
  messageId: string;
  /** What its events say of it (its subject, tags), when it names a configuration set. */
  subject: string;
  tags: string[];
  configurationSet: string | null;
}

function tagsOf(value: unknown): string[] {
  return Array.isArray(value) ? (value as Json[]).filter((t) => typeof t?.Name === 'string').map((t) => `${String(t.Name)}=${String(t.Value ?? '')}`) : [];
}

/** The email of a template send: rendered when the template is registered, else stored with its name and data. */
async function templateEmail(base: EmailToCompose, name: string, templateData: unknown, scope: SesScope): Promise<EmailToCompose | SesAnswer> {
  const email: EmailToCompose = { ...base, template: { id: name, data: templateData } };
  const template = await scope.templates.get(scope.owner, 'ses', name);
  if (!template) return email;
  const rendered = await renderTemplate(template, templateData);
  if ('error' in rendered) return sesError(400, 'BadRequestException', `Template ${name}: ${rendered.error}`);
  return { ...email, subject: rendered.subject, html: rendered.html, text: rendered.text };
}

/** Checks a message's recipients and stores it: SES's answer (`MessageRejected` for a recipient whose inbox fails with 5.1.1). */
async function deliverMessage(c: Context<AppEnv>, ctx: ServerContext, scope: SesScope, message: SesMessage): Promise<SesAnswer> {
  if (message.raw.byteLength > ctx.config.maxMessageBytes) return sesError(400, 'MessageRejected', `Message length is more than this service's limit of ${ctx.config.maxMessageBytes} bytes (--max-message-size).`);
  if (message.recipients.length === 0) return sesError(400, 'BadRequestException', 'Missing final @domain: the message has no recipients (Destination).');
  const checked = await checkRecipients(ctx, 'ses', scope.reach, message.recipients);
  const invalid = checked.refused.find((check) => check.fault.class === 'invalid');
  if (invalid) return sesError(400, 'MessageRejected', `Email address is not valid: ${invalid.recipient} was refused (${invalid.fault.code} ${invalid.fault.text}); it is this inbox's delivery fault, clear it to send again.`);
  if (!checked.reachedAny) return sesError(400, 'MessageRejected', `None of ${message.recipients.join(', ')} is an active inboxkit inbox this caller may send to; create the inbox first (POST /api/v1/inboxes).`);
  await deliverEmail(c, ctx, scope.reach, { provider: 'ses', envelopeFrom: message.envelopeFrom, raw: message.raw, providerId: message.messageId }, checked.accepted);
  if (message.configurationSet) {
    const mail = { messageId: message.messageId, source: message.envelopeFrom, destination: message.recipients, subject: message.subject, configurationSet: message.configurationSet, tags: message.tags };
    publishSesEvents(ctx, scope.events, mail, checked.checks);
  }
  return { status: 200, body: { MessageId: message.messageId } };
}

/** The message of a `SendEmail` (Simple, Template or Raw content), or SES's error. */
async function messageOf(ctx: ServerContext, scope: SesScope, json: Json, messageId: string): Promise<SesMessage | SesAnswer> {
  const content = (typeof json.Content === 'object' && json.Content !== null ? json.Content : {}) as Json;
  const destination = json.Destination === undefined ? null : destinationOf(json.Destination);
  if (isAnswer(destination)) return destination;
  const from = typeof json.FromEmailAddress === 'string' ? json.FromEmailAddress : '';
  const unknownSet = configurationSetProblem(scope.events, json.ConfigurationSetName);
  if (unknownSet) return unknownSet;
  const about = { tags: tagsOf(json.EmailTags), configurationSet: typeof json.ConfigurationSetName === 'string' && json.ConfigurationSetName !== '' ? json.ConfigurationSetName : null };
  if (typeof content.Raw === 'object' && content.Raw !== null) {
    const data = (content.Raw as Json).Data;
    if (typeof data !== 'string') return sesError(400, 'BadRequestException', 'Missing required field: Content.Raw.Data (the MIME message, base64).');
    const raw = stampRaw(Buffer.from(data, 'base64'), 'ses', messageId);
    return { raw, recipients: destination ? destinationAddresses(destination) : rawRecipients(raw), envelopeFrom: from || rawFrom(raw), messageId, subject: '', ...about };
  }
  if (from === '') return sesError(400, 'BadRequestException', 'Missing required field: FromEmailAddress.');
  if (!destination) return sesError(400, 'BadRequestException', 'Missing required field: Destination.');
  const base = baseEmail(json, from, destination, messageId);
  let email: EmailToCompose | SesAnswer;
  if (typeof content.Simple === 'object' && content.Simple !== null) {
    const simple = simpleOf(content.Simple as Json);
    email = isAnswer(simple) ? simple : { ...base, ...simple };
  } else if (typeof content.Template === 'object' && content.Template !== null) {
    const template = content.Template as Json;
    const name = typeof template.TemplateName === 'string' ? template.TemplateName : typeof template.TemplateArn === 'string' ? template.TemplateArn.split('/').pop() ?? '' : '';
    if (name === '') return sesError(400, 'BadRequestException', 'Missing required field: Content.Template.TemplateName.');
    const templateData = templateDataOf(template.TemplateData);
    email = isAnswer(templateData) ? templateData : await templateEmail(base, name, templateData, scope);
  } else {
    return sesError(400, 'BadRequestException', 'Content must have one of Simple, Raw or Template.');
  }
  if (isAnswer(email)) return email;
  const raw = await composeWithin(ctx, email);
  if (!raw) return sesError(400, 'MessageRejected', `Message length is more than this service's limit of ${ctx.config.maxMessageBytes} bytes (--max-message-size).`);
  return { raw, recipients: destinationAddresses(destination), envelopeFrom: addressOf(from), messageId, subject: email.subject, ...about };
}

function addressOf(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from;
}

function baseEmail(json: Json, from: string, destination: SesDestination, messageId: string): EmailToCompose {
  const replyTo = Array.isArray(json.ReplyToAddresses) ? json.ReplyToAddresses.filter((a): a is string => typeof a === 'string') : [];
  return { provider: 'ses', providerId: messageId, from, to: destination.to, cc: destination.cc, replyTo, subject: '', headers: {}, attachments: [], tags: tagsOf(json.EmailTags) };
}

/** `SendEmail`. */
async function sendEmail(c: Context<AppEnv>, ctx: ServerContext, scope: SesScope, json: Json): Promise<SesAnswer> {
  const message = await messageOf(ctx, scope, json, sesMessageId());
  return isAnswer(message) ? message : deliverMessage(c, ctx, scope, message);
}

/** `SendBulkEmail`: each entry its own email of the default template, its replacement data over the default; a result per entry. */
async function sendBulk(c: Context<AppEnv>, ctx: ServerContext, scope: SesScope, json: Json): Promise<SesAnswer> {
  const entries = Array.isArray(json.BulkEmailEntries) ? (json.BulkEmailEntries as Json[]) : [];
  if (entries.length === 0 || entries.length > SES_MAX_BULK) return sesError(400, 'BadRequestException', `BulkEmailEntries must have from 1 to ${SES_MAX_BULK} entries.`);
  const template = ((json.DefaultContent as Json | undefined)?.Template ?? {}) as Json;
  const defaults = templateDataOf(template.TemplateData);
  if (isAnswer(defaults)) return defaults;
  const results: unknown[] = [];
  for (const entry of entries) {
    const replacement = templateDataOf(((entry.ReplacementEmailContent as Json | undefined)?.ReplacementTemplate as Json | undefined)?.ReplacementTemplateData);
    const data = isAnswer(replacement) ? defaults : { ...(defaults as object), ...(replacement as object) };
    const one = { ...json, Destination: entry.Destination, EmailTags: [...(Array.isArray(json.DefaultEmailTags) ? json.DefaultEmailTags : []), ...(Array.isArray(entry.ReplacementTags) ? entry.ReplacementTags : [])], Content: { Template: { ...template, TemplateData: JSON.stringify(data) } } };
    const sent = await sendEmail(c, ctx, scope, one);
    results.push(sent.status === 200 ? { Status: 'SUCCESS', MessageId: (sent.body as { MessageId: string }).MessageId } : { Status: sent.errorType === 'MessageRejected' ? 'MESSAGE_REJECTED' : 'INVALID_PARAMETER', Error: (sent.body as { message: string }).message });
  }
  return { status: 200, body: { BulkEmailEntryResults: results } };
}

/** `CreateEmailTemplate`: registers the template with the service (SES's `{{ }}` is Handlebars). */
async function createTemplate(scope: SesScope, json: Json): Promise<SesAnswer> {
  const name = typeof json.TemplateName === 'string' ? json.TemplateName : '';
  if (name === '') return sesError(400, 'BadRequestException', 'Missing required field: TemplateName.');
  const content = (json.TemplateContent ?? {}) as Json;
  const template = await parseTemplate({ subject: content.Subject, html: content.Html, text: content.Text });
  if ('error' in template) return sesError(400, 'BadRequestException', template.error);
  if (await scope.templates.get(scope.owner, 'ses', name)) return sesError(400, 'AlreadyExistsException', `Template ${name} already exists.`);
  await scope.templates.put(scope.owner, 'ses', name, template);
  return { status: 200, body: {} };
}

/** SES v1 (`@aws-sdk/client-ses`, the Query protocol at `POST /`): its actions read as v2's, answered in v1's XML. */
async function sesV1(c: Context<AppEnv>, ctx: ServerContext, parts: SesParts): Promise<Response> {
  const form = Object.fromEntries(Object.entries(await c.req.parseBody().catch(() => ({}))).filter((e): e is [string, string] => typeof e[1] === 'string')) as QueryForm;
  const action = form.Action ?? '';
  const xmlOf = (a: { status: number; xml: string }) => c.body(a.xml, a.status as 200, { 'content-type': 'text/xml' });
  if (!(SES_V1_ACTIONS as readonly string[]).includes(action)) return xmlOf(v1Unserved(action));
  const reach = emailReachOf(c, ctx);
  if (!reach) return xmlOf(v1Answer(action, sesError(403, 'InvalidClientTokenId', REFUSED)));
  const scope = scopeOf(c, reach, parts);
  return xmlOf(v1Answer(action, await v1Action(c, ctx, scope, action, form)));
}

/** A v1 action, read as v2's. */
async function v1Action(c: Context<AppEnv>, ctx: ServerContext, scope: SesScope, action: string, form: QueryForm): Promise<SesAnswer> {
  if (action === 'CreateTemplate') return createTemplate(scope, v2TemplateOf(form));
  if (action === 'CreateConfigurationSet') return createConfigurationSet(scope.events, { ConfigurationSetName: form['ConfigurationSet.Name'] });
  if (action === 'CreateConfigurationSetEventDestination') return createEventDestination(scope.events, form.ConfigurationSetName ?? '', v2EventDestinationOf(form));
  return sendEmail(c, ctx, scope, v2SendOf(action, form));
}

function scopeOf(c: Context<AppEnv>, reach: Reach, parts: SesParts): SesScope {
  const owner = templateOwnerOf(c);
  return { reach, templates: parts.templates, owner, events: { owner, sets: parts.sesConfigurationSets, topics: parts.snsTopics } };
}

const REFUSED = 'The security token included in the request is invalid: this shared inboxkit service takes an inboxkit API key as the AWS access key id (credentials: { accessKeyId: "tm_…", secretAccessKey: "any" }).';

/** The SES routes, mounted at `/email/ses`. */
export function createSesRoutes(ctx: ServerContext, parts: SesParts): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const serve = (handle: (c: Context<AppEnv>, scope: SesScope, json: Json) => Promise<SesAnswer> | SesAnswer) => async (c: Context<AppEnv>) => {
    const reach = emailReachOf(c, ctx);
    if (!reach) return answer(c, sesError(403, 'UnrecognizedClientException', REFUSED));
    const json = (await c.req.json().catch(() => null)) as Json | null;
    if (!json || typeof json !== 'object') return answer(c, sesError(400, 'BadRequestException', 'The request body is not JSON (the SESv2 SDK sends JSON).'));
    return answer(c, await handle(c, scopeOf(c, reach, parts), json));
  };
  app.post('/v2/email/outbound-emails', serve((c, scope, json) => sendEmail(c, ctx, scope, json)));
  app.post('/v2/email/outbound-bulk-emails', serve((c, scope, json) => sendBulk(c, ctx, scope, json)));
  app.post('/v2/email/templates', serve((_c, scope, json) => createTemplate(scope, json)));
  app.post('/v2/email/configuration-sets', serve((_c, scope, json) => createConfigurationSet(scope.events, json)));
  app.post('/v2/email/configuration-sets/:name/event-destinations', serve((c, scope, json) => createEventDestination(scope.events, c.req.param('name') ?? '', json)));
  app.post('/', (c) => sesV1(c, ctx, parts));
  app.all('*', (c) => {
    // v1's Query protocol posts its form to the endpoint's path, with or without a trailing slash.
    if (c.req.method === 'POST' && (/^\/email\/ses\/?$/.test(c.req.path) || /x-www-form-urlencoded/i.test(c.req.header('content-type') ?? ''))) return sesV1(c, ctx, parts);
    return answer(c, sesError(404, 'NotFoundException', `${c.req.method} ${c.req.path.replace(/^\/email\/ses/, '')} is not served by inboxkit's SES emulation: it serves SESv2 SendEmail, SendBulkEmail, CreateEmailTemplate, CreateConfigurationSet and CreateConfigurationSetEventDestination, and v1's ${SES_V1_ACTIONS.join(', ')}.`));
  });
  return app;
}
