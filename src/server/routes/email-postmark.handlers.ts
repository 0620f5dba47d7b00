/**
 * Postmark's Email API, as an app's `postmark` SDK calls it with
 * `new ServerClient(token, { requestHost: process.env.INBOXKIT_POSTMARK_REQUEST_HOST, useHttps: false })`:
 * `POST /email`, `/email/batch`, `/email/withTemplate` and
 * `/email/batchWithTemplates` check every recipient with the intake, store
 * the email in each recipient's inbox and answer Postmark's `{ MessageID,
 * ErrorCode: 0 }`, or Postmark's `{ ErrorCode, Message }`. The
 * `POSTMARK_API_TEST` token is validated and answered and nothing is
 * delivered, as Postmark does. Other paths answer Postmark's 404.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Reach } from '../auth/caller.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { EmailToCompose } from '../email/compose.ts';
import { POSTMARK_MAX_BATCH, POSTMARK_TEST_TOKEN, parsePostmarkSend, postmarkError, postmarkMessageId, postmarkSent } from '../email/postmark.ts';
import type { PostmarkAnswer, PostmarkSend } from '../email/postmark.ts';
import { MAX_POSTMARK_WEBHOOKS_PER_CALLER, parsePostmarkWebhook, postmarkEvent, postmarkWebhookAnswer } from '../email/postmark-webhooks.ts';
import type { PostmarkWebhook } from '../email/postmark-webhooks.ts';
import { renderTemplate } from '../email/templates.ts';
import type { TemplateRegistry } from '../email/templates.ts';
import { checkRecipients, composeWithin, deliverEmail, emailReachOf } from './email-intake.ts';
import type { CheckedSend } from './email-intake.ts';
import { templateOwnerOf } from './email-templates.handlers.ts';
import { isAnswer } from '../email/answer.ts';

function answer(c: Context<AppEnv>, a: PostmarkAnswer): Response {
  return c.json(a.body as object, a.status);
}


/** What a send is made in: the caller's reach, its templates, and whether the token is Postmark's test token. */
interface SendScope {
  reach: Reach;
  templates: TemplateRegistry;
  owner: string;
  test: boolean;
  /** The caller's webhooks. */
  webhooks: readonly PostmarkWebhook[];
  log: ServerContext['logger'];
  /** The node's webhook sender, within its bounds. */
  sender: ServerContext['webhooks'];
}

/** Posts each recipient's Delivery or Bounce event to the caller's webhooks of the send's stream; a failure is logged, never retried. */
function postEvents(scope: SendScope, send: PostmarkSend, checked: CheckedSend, messageId: string): void {
  const stream = send.email.tags.find((t) => t.startsWith('message-stream='))?.slice('message-stream='.length) ?? 'outbound';
  const tag = send.email.tags.find((t) => !t.startsWith('message-stream=')) ?? '';
  for (const check of checked.checks) {
    const kind = check.verdict === 'undeliverable' ? 'Bounce' : 'Delivery';
    const event = postmarkEvent(kind, { messageId, recipient: check.recipient, from: send.envelopeFrom, subject: send.email.subject, tag, stream }, check.verdict === 'undeliverable' ? `${check.fault.code} ${check.fault.text}` : '');
    for (const hook of scope.webhooks.filter((w) => w.messageStream === stream && (kind === 'Bounce' ? w.bounce : w.delivery))) {
      scope.sender.postBody(scope.owner, hook.url, JSON.stringify(event), { ...hook.headers, 'content-type': 'application/json' }).catch((error: unknown) => scope.log.warn({ err: error, url: hook.url, messageId }, 'email: a Postmark webhook failed'));
    }
  }
}

/** The email of a send, its template rendered when registered (else stored with its alias and model). */
async function emailOf(send: PostmarkSend, messageId: string, scope: SendScope): Promise<EmailToCompose | PostmarkAnswer> {
  const email: EmailToCompose = { ...send.email, providerId: messageId };
  if (!send.template) return email;
  email.template = { id: send.template.id, data: send.template.model };
  const template = await scope.templates.get(scope.owner, 'postmark', send.template.id);
  if (!template) return email;
  const rendered = await renderTemplate(template, send.template.model);
  if ('error' in rendered) return postmarkError(1109, `The template ${send.template.id} does not render: ${rendered.error}`);
  return { ...email, subject: rendered.subject, html: rendered.html, text: rendered.text };
}

/** One email: parse, compose, check every recipient (an inactive one refuses the email), deliver. */
async function sendOne(c: Context<AppEnv>, ctx: ServerContext, scope: SendScope, body: unknown, withTemplate: boolean): Promise<PostmarkAnswer> {
  const send = parsePostmarkSend(body, withTemplate);
  if (isAnswer(send)) return send;
  const messageId = postmarkMessageId();
  const email = await emailOf(send, messageId, scope);
  if (isAnswer(email)) return email;
  const raw = await composeWithin(ctx, email);
  if (!raw) return postmarkError(300, `The email is larger than this service's limit of ${ctx.config.maxMessageBytes} bytes (--max-message-size).`);
  if (scope.test) return postmarkSent(send.to, messageId, true);
  const checked = await checkRecipients(ctx, 'postmark', scope.reach, send.recipients);
  if (checked.refused.length > 0) {
    const found = checked.refused.map((check) => check.recipient).join(', ');
    return postmarkError(406, `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${found}. Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression. (inboxkit: the inbox's delivery fault; clear it to send again.)`);
  }
  if (!checked.reachedAny) return postmarkError(300, `Invalid 'To' address: none of ${send.recipients.join(', ')} is an active inboxkit inbox this caller may send to; create the inbox first (POST /api/v1/inboxes).`);
  await deliverEmail(c, ctx, scope.reach, { provider: 'postmark', envelopeFrom: send.envelopeFrom, raw, providerId: messageId }, checked.accepted);
  if (scope.webhooks.length > 0) postEvents(scope, send, checked, messageId);
  return postmarkSent(send.to, messageId, false);
}

/** A batch: each email answered on its own (`ErrorCode` per email), the request `200`. */
async function sendBatch(c: Context<AppEnv>, ctx: ServerContext, scope: SendScope, items: unknown, withTemplate: boolean): Promise<PostmarkAnswer> {
  if (!Array.isArray(items)) return postmarkError(402, withTemplate ? 'Received invalid JSON input: the body must be { Messages: [...] }.' : 'Received invalid JSON input: the body must be an array of emails.');
  if (items.length > POSTMARK_MAX_BATCH) return postmarkError(300, `A batch has at most ${POSTMARK_MAX_BATCH} emails; this one has ${items.length}.`);
  const results: unknown[] = [];
  for (const item of items) results.push((await sendOne(c, ctx, scope, item, withTemplate)).body);
  return { status: 200, body: results };
}

const NO_TOKEN = 'No Account or Server API tokens were supplied in the HTTP headers. Please add a header for either X-Postmark-Server-Token or X-Postmark-Account-Token.';
const REFUSED = 'Request does not contain a valid Server token: this shared inboxkit service takes an inboxkit API key as the server token (new ServerClient("tm_…", { requestHost })).';

/** The Postmark routes, mounted at `/email/postmark`. */
export function createPostmarkRoutes(ctx: ServerContext, parts: { templates: TemplateRegistry }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const hooks = new Map<string, PostmarkWebhook[]>();
  const serve = (send: (c: Context<AppEnv>, scope: SendScope, body: unknown) => Promise<PostmarkAnswer>) => async (c: Context<AppEnv>) => {
    const token = c.req.header('x-postmark-server-token');
    if (!token) return answer(c, postmarkError(10, NO_TOKEN, 401));
    const test = token === POSTMARK_TEST_TOKEN;
    const reach = emailReachOf(c, ctx);
    if (!reach) return answer(c, postmarkError(10, REFUSED, 401));
    const body: unknown = await c.req.json().catch(() => undefined);
    if (body === undefined) return answer(c, postmarkError(402, 'Received invalid JSON input.'));
    const owner = templateOwnerOf(c);
    return answer(c, await send(c, { reach, templates: parts.templates, owner, test, webhooks: hooks.get(owner) ?? [], log: ctx.logger, sender: ctx.webhooks }, body));
  };
  app.post(
    '/webhooks',
    serve(async (_c, scope, body) => {
      const hook = parsePostmarkWebhook(body);
      if ('error' in hook) return postmarkError(300, hook.error);
      const problem = ctx.webhooks.problemOf(hook.url);
      if (problem) return postmarkError(300, `Invalid webhook Url: ${problem}.`);
      const own = hooks.get(scope.owner) ?? [];
      while (own.length >= MAX_POSTMARK_WEBHOOKS_PER_CALLER) own.shift();
      own.push(hook);
      hooks.set(scope.owner, own);
      return { status: 200, body: postmarkWebhookAnswer(hook) };
    }),
  );
  app.post('/email', serve((c, scope, body) => sendOne(c, ctx, scope, body, false)));
  app.post('/email/withTemplate', serve((c, scope, body) => sendOne(c, ctx, scope, body, true)));
  app.post('/email/batch', serve((c, scope, body) => sendBatch(c, ctx, scope, body, false)));
  app.post('/email/batchWithTemplates', serve((c, scope, body) => sendBatch(c, ctx, scope, (body as { Messages?: unknown } | null)?.Messages, true)));
  app.all('*', (c) => answer(c, postmarkError(404, `${c.req.method} ${c.req.path.replace(/^\/email\/postmark/, '')} is not served by inboxkit's Postmark emulation: it serves POST /email (sendEmail), /email/batch (sendEmailBatch), /email/withTemplate (sendEmailWithTemplate) /email/batchWithTemplates (sendEmailBatchWithTemplates) and /webhooks (createWebhook).`, 404)));
  return app;
}
