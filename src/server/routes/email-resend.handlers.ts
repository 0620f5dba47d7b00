/**
 * Resend's API, as an app's `resend` SDK calls it with
 * `new Resend(key, { baseUrl: process.env.INBOXKIT_RESEND_BASE_URL })` (or
 * `RESEND_BASE_URL`): `POST /emails` (`emails.send`) and `POST /emails/batch`
 * (`batch.send`) check every recipient with the intake, then store the
 * composed email in each recipient's inbox and answer Resend's `{ id }`, or
 * Resend's error. An `Idempotency-Key` is honoured as Resend does. Other
 * paths answer Resend's 404.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { callerOf } from '../auth/caller.ts';
import type { Reach } from '../auth/caller.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { createIdempotentSends } from '../email/idempotency.ts';
import type { IdempotentSends } from '../email/idempotency.ts';
import { RESEND_MAX_BATCH, parseResendSend, resendError, resendId } from '../email/resend.ts';
import type { ResendAnswer, ResendSend } from '../email/resend.ts';
import { MAX_RESEND_WEBHOOKS_PER_CALLER, newResendWebhook, resendEventBody, svixHeaders } from '../email/resend-webhooks.ts';
import type { ResendEventType, ResendWebhook } from '../email/resend-webhooks.ts';
import { renderTemplate } from '../email/templates.ts';
import type { TemplateRegistry } from '../email/templates.ts';
import { clientAddressOf } from '../http/client-address.ts';
import type { RecipientCheck } from '../intake/types.ts';
import { checkRecipients, composeWithin, deliverEmail, emailReachOf, maxRecipientsOf } from './email-intake.ts';
import type { CheckedSend } from './email-intake.ts';
import { isAnswer } from '../email/answer.ts';

function answer(c: Context<AppEnv>, a: ResendAnswer): Response {
  return c.json(a.body as object, a.status);
}

/** A send checked and composed, ready to deliver. */
interface ReadySend {
  send: ResendSend;
  checked: CheckedSend;
  /** Its id, and the MIME composed with it. */
  id: string;
  raw: Uint8Array;
}

/**
 * Checks a parsed send: the bounds, then each recipient. A recipient whose
 * inbox's fault says `5.1.1` is refused at once as Resend refuses an invalid
 * address; `5.7.1` (suppressed) and other faults are accepted, not delivered.
 */
async function readySend(ctx: ServerContext, reach: Reach, parsed: ResendSend, templates: TemplateLookup): Promise<ReadySend | ResendAnswer> {
  const send = await withTemplate(parsed, templates);
  if (isAnswer(send)) return send;
  const limit = maxRecipientsOf(ctx, 3 * 50);
  if (send.recipients.length > limit) return resendError(422, 'validation_error', `Too many recipients: at most ${limit} in \`to\`, \`cc\` and \`bcc\` together on this service (--max-recipients).`);
  const id = resendId();
  const raw = await composeWithin(ctx, { ...send.email, providerId: id });
  if (!raw) return resendError(413, 'validation_error', `The email is larger than this service's limit of ${ctx.config.maxMessageBytes} bytes (--max-message-bytes).`);
  const checked = await checkRecipients(ctx, 'resend', reach, send.recipients);
  const invalid = checked.refused.find((check) => check.fault.class === 'invalid');
  if (invalid) return resendError(422, 'validation_error', `Invalid \`to\` field: ${invalid.recipient} was refused (${invalid.fault.code} ${invalid.fault.text}). It is this inbox's delivery fault; clear it to send again.`);
  if (!checked.reachedAny) return resendError(422, 'validation_error', `None of ${send.recipients.join(', ')} is an active inboxkit inbox this caller may send to; create the inbox first (POST /api/v1/inboxes).`);
  return { send, checked, id, raw };
}


/** The caller's webhooks, on this node. */
type WebhookBook = Map<string, ResendWebhook[]>;

function callerKeyOf(c: Context<AppEnv>): string {
  return callerOf(c.var.principal, clientAddressOf(c)).key;
}

/** The events a recipient's check makes: sent, then delivered, bounced or suppressed. */
function eventsOf(check: RecipientCheck): Array<{ type: ResendEventType; bounce?: string }> {
  if (check.verdict === 'accepted') return [{ type: 'email.sent' }, { type: 'email.delivered' }];
  if (check.verdict === 'undeliverable') return [{ type: 'email.sent' }, { type: 'email.bounced', bounce: `${check.fault.code} ${check.fault.text}` }];
  if (check.verdict === 'refused') return [{ type: 'email.suppressed', bounce: `${check.fault.code} ${check.fault.text}` }];
  return [{ type: 'email.sent' }, { type: 'email.delivered' }]; // an address the service does not hold: as Resend would, delivered elsewhere
}

/** Posts each recipient's events to the caller's webhooks that take them, signed; a failure is logged, never retried. */
function postEvents(ctx: ServerContext, caller: string, webhooks: readonly ResendWebhook[], ready: ReadySend): void {
  for (const check of ready.checked.checks) {
    for (const event of eventsOf(check)) {
      const body = resendEventBody(event.type, { id: ready.id, from: ready.send.email.from, to: check.recipient, subject: ready.send.email.subject }, event.bounce);
      for (const hook of webhooks.filter((w) => w.events.includes(event.type))) {
        ctx.webhooks.postBody(caller, hook.endpoint, body, svixHeaders(hook.secret, body)).catch((error: unknown) => ctx.logger.warn({ err: error, url: hook.endpoint, emailId: ready.id }, 'email: a Resend webhook failed'));
      }
    }
  }
}

/** The caller's templates, as a send looks them up. */
interface TemplateLookup {
  registry: TemplateRegistry;
  owner: string;
}

/** A template send rendered with its variables when the caller registered the template (Resend's `{{{VAR}}}` is Handlebars). */
async function withTemplate(send: ResendSend, templates: TemplateLookup): Promise<ResendSend | ResendAnswer> {
  const asked = send.email.template;
  const template = asked ? await templates.registry.get(templates.owner, 'resend', asked.id) : null;
  if (!asked || !template) return send;
  const rendered = await renderTemplate(template, asked.data);
  if ('error' in rendered) return resendError(422, 'validation_error', `Template ${asked.id}: ${rendered.error}`);
  return { ...send, email: { ...send.email, subject: send.email.subject || rendered.subject, html: rendered.html ?? send.email.html, text: rendered.text ?? send.email.text } };
}

/** Stores a ready send in each accepted inbox, then tells the caller's webhooks: its id. */
async function deliverReady(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, ready: ReadySend, book?: WebhookBook): Promise<string> {
  await deliverEmail(c, ctx, reach, { provider: 'resend', envelopeFrom: ready.send.envelopeFrom, raw: ready.raw, providerId: ready.id }, ready.checked.accepted);
  const caller = callerKeyOf(c);
  const webhooks = book?.get(caller) ?? [];
  if (webhooks.length > 0) postEvents(ctx, caller, webhooks, ready);
  return ready.id;
}

/** `POST /webhooks` (`webhooks.create()`): a loopback endpoint and the events it takes; answers its id and signing secret. */
async function createWebhook(c: Context<AppEnv>, book: WebhookBook, problemOf: (url: string) => string | null): Promise<ResendAnswer> {
  const body = (await c.req.json().catch(() => null)) as { endpoint?: unknown; events?: unknown } | null;
  const endpoint = typeof body?.endpoint === 'string' ? body.endpoint : '';
  const problem = problemOf(endpoint);
  if (problem) return resendError(422, 'validation_error', `Invalid \`endpoint\`: ${problem}.`);
  const events = Array.isArray(body?.events) ? body.events.filter((e): e is string => typeof e === 'string') : [];
  if (events.length === 0) return resendError(422, 'validation_error', 'Missing `events`: the event types to post (email.sent, email.delivered, email.bounced, email.suppressed).');
  const key = callerKeyOf(c);
  const own = book.get(key) ?? [];
  while (own.length >= MAX_RESEND_WEBHOOKS_PER_CALLER) own.shift();
  const hook = newResendWebhook(endpoint, events);
  own.push(hook);
  book.set(key, own);
  return { status: 200, body: { object: 'webhook', id: hook.id, signing_secret: hook.secret } };
}

/** `POST /emails`. */
async function sendOne(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, body: unknown, book: WebhookBook, templates: TemplateLookup): Promise<ResendAnswer> {
  const send = parseResendSend(body);
  if (isAnswer(send)) return send;
  const ready = await readySend(ctx, reach, send, templates);
  if (isAnswer(ready)) return ready;
  return { status: 200, body: { id: await deliverReady(c, ctx, reach, ready, book) } };
}

/** `POST /emails/batch`: strict (the default) refuses the whole batch for one bad email; permissive sends the good ones and lists the errors. */
async function sendBatch(c: Context<AppEnv>, ctx: ServerContext, reach: Reach, body: unknown, book: WebhookBook, templates: TemplateLookup): Promise<ResendAnswer> {
  if (!Array.isArray(body)) return resendError(422, 'validation_error', 'The request body must be a JSON array of emails (batch.send([...])).');
  if (body.length === 0 || body.length > RESEND_MAX_BATCH) return resendError(422, 'validation_error', `A batch has from 1 to ${RESEND_MAX_BATCH} emails; this one has ${body.length}.`);
  const permissive = c.req.header('x-batch-validation') === 'permissive';
  const readies: Array<ReadySend | ResendAnswer> = [];
  for (const item of body) {
    const send = parseResendSend(item);
    readies.push(isAnswer(send) ? send : await readySend(ctx, reach, send, templates));
  }
  const firstBad = readies.findIndex(isAnswer);
  if (firstBad >= 0 && !permissive) {
    const bad = readies[firstBad] as ResendAnswer;
    const message = (bad.body as { message: string }).message;
    return resendError(bad.status, 'validation_error', `emails[${firstBad}]: ${message}`);
  }
  const data: Array<{ id: string }> = [];
  const errors: Array<{ index: number; message: string }> = [];
  for (const [index, ready] of readies.entries()) {
    if (isAnswer(ready)) errors.push({ index, message: (ready.body as { message: string }).message });
    else data.push({ id: await deliverReady(c, ctx, reach, ready, book) });
  }
  return { status: 200, body: permissive ? { data, errors } : { data } };
}

/** Runs a send under its `Idempotency-Key`, as Resend does: a repeat answers the first answer and sends nothing. */
async function idempotent(c: Context<AppEnv>, keys: IdempotentSends<ResendAnswer>, send: (body: unknown) => Promise<ResendAnswer>): Promise<ResendAnswer> {
  const raw = await c.req.text();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return resendError(422, 'validation_error', 'The request body is not valid JSON.');
  }
  const key = c.req.header('idempotency-key');
  if (key === undefined) return send(body);
  if (key.length === 0 || key.length > 256) return resendError(400, 'invalid_idempotency_key', 'The key must be between 1-256 chars.');
  const caller = callerOf(c.var.principal, clientAddressOf(c)).key;
  const verdict = await keys.claim(caller, `${c.req.path} ${key}`, raw, Date.now());
  if (verdict.kind === 'replay') return verdict.answer;
  if (verdict.kind === 'mismatch') return resendError(409, 'invalid_idempotent_request', 'Same idempotency key used with a different request payload. Change your idempotency key or payload.');
  if (verdict.kind === 'in_flight') return resendError(409, 'concurrent_idempotent_requests', 'Same idempotency key used while original request is still in progress. Try the request again later.');
  try {
    const result = await send(body);
    if (result.status === 200) await keys.settle(caller, `${c.req.path} ${key}`, result);
    else await keys.forget(caller, `${c.req.path} ${key}`);
    return result;
  } catch (error) {
    await keys.forget(caller, `${c.req.path} ${key}`);
    throw error;
  }
}

const REFUSED = 'API key is invalid: this shared inboxkit service takes an inboxkit API key as the Resend API key (new Resend("tm_…", { baseUrl })).';

/** The Resend routes, mounted at `/email/resend`. */
export function createResendRoutes(ctx: ServerContext, parts: { templates: TemplateRegistry }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const keys = createIdempotentSends<ResendAnswer>(ctx.store);
  const book: WebhookBook = new Map();
  const refusal = (c: Context<AppEnv>) => resendError(c.req.header('authorization') ? 403 : 401, c.req.header('authorization') ? 'invalid_api_key' : 'missing_api_key', REFUSED);
  const serve = (send: (c: Context<AppEnv>, ctx: ServerContext, reach: Reach, body: unknown, book: WebhookBook, templates: TemplateLookup) => Promise<ResendAnswer>) => async (c: Context<AppEnv>) => {
    const reach = emailReachOf(c, ctx);
    if (!reach) return answer(c, refusal(c));
    const templates = { registry: parts.templates, owner: callerKeyOf(c) };
    return answer(c, await idempotent(c, keys, (body) => send(c, ctx, reach, body, book, templates)));
  };
  app.post('/emails', serve(sendOne));
  app.post('/emails/batch', serve(sendBatch));
  app.post('/webhooks', async (c) => answer(c, emailReachOf(c, ctx) ? await createWebhook(c, book, ctx.webhooks.problemOf) : refusal(c)));
  app.all('*', (c) => answer(c, resendError(404, 'not_found', `${c.req.method} ${c.req.path.replace(/^\/email\/resend/, '')} is not served by inboxkit's Resend emulation: it serves POST /emails (emails.send), POST /emails/batch (batch.send) and POST /webhooks (webhooks.create).`)));
  return app;
}
