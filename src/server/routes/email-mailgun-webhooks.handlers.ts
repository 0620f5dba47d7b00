/**
 * Mailgun's webhook registrations, as `mailgun.js` makes them:
 * `webhooks.create(domain, id, url)` (`POST /v3/domains/{domain}/webhooks`,
 * a form of `id` and `url`), `webhooks.list(domain)`,
 * `webhooks.destroy(domain, id)`, and the signing key apps verify the posts
 * with (`GET /v5/accounts/http_signing_key`: the API key the request
 * carries). Each belongs to the caller (`callerOf`), per node, within bounds.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { mailgunError } from '../email/mailgun.ts';
import { MAILGUN_MAX_DOMAINS, MAILGUN_MAX_URLS, MAILGUN_WEBHOOK_IDS, webhookAnswer } from '../email/mailgun-webhooks.ts';
import type { MailgunDomainHooks } from '../email/mailgun-webhooks.ts';
import { basicCredentials } from '../sms/kit.ts';
import { emailReachOf } from './email-intake.ts';
import { templateOwnerOf } from './email-templates.handlers.ts';

/** The API key of a request (mailgun.js's Basic `api:key`), the key its webhooks are signed with. */
function apiKeyOf(c: Context<AppEnv>): string | null {
  return basicCredentials(c.req.header('authorization'))?.password ?? null;
}

/** The registration routes, beside the Messages API at `/email/mailgun`; `hooks` is keyed by caller and domain. */
export function createMailgunWebhookRoutes(ctx: ServerContext, hooks: Map<string, MailgunDomainHooks>): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const keyOf = (c: Context<AppEnv>) => `${templateOwnerOf(c)}\n${c.req.param('domain') ?? ''}`;
  const guarded = (handle: (c: Context<AppEnv>) => Response | Promise<Response>) => (c: Context<AppEnv>) => (!emailReachOf(c, ctx) || apiKeyOf(c) === null ? c.text('Forbidden', 401) : handle(c));
  app.post('/v3/domains/:domain/webhooks', guarded(async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const [id, url] = [form.id, form.url];
    if (typeof id !== 'string' || !(MAILGUN_WEBHOOK_IDS as readonly string[]).includes(id)) return c.json(mailgunError(400, `id must be one of ${MAILGUN_WEBHOOK_IDS.join(', ')}`).body as object, 400);
    if (typeof url !== 'string' || url === '') return c.json(mailgunError(400, 'url parameter is missing').body as object, 400);
    const problem = ctx.webhooks.problemOf(url);
    if (problem) return c.json(mailgunError(400, `url is not a valid webhook target: ${problem}`).body as object, 400);
    const existing = hooks.get(keyOf(c));
    if (!existing && [...hooks.keys()].filter((key) => key.startsWith(`${templateOwnerOf(c)}\n`)).length >= MAILGUN_MAX_DOMAINS) return c.json(mailgunError(400, `This caller has webhooks on ${MAILGUN_MAX_DOMAINS} domains on this node, its bound.`).body as object, 400);
    const domain = existing ?? { urls: new Map<string, string[]>(), signingKey: apiKeyOf(c) ?? '' };
    const urls = domain.urls.get(id) ?? [];
    if (urls.includes(url)) return c.json(mailgunError(400, `Webhook ${id} already has the url ${url}`).body as object, 400);
    if (urls.length >= MAILGUN_MAX_URLS) return c.json(mailgunError(400, `Webhook ${id} has ${MAILGUN_MAX_URLS} urls, Mailgun's limit.`).body as object, 400);
    domain.urls.set(id, [...urls, url]);
    hooks.set(keyOf(c), domain);
    return c.json(webhookAnswer('Webhook has been created', domain.urls.get(id) ?? []), 200);
  }));
  app.get('/v3/domains/:domain/webhooks', guarded((c) => {
    const domain = hooks.get(keyOf(c));
    return c.json({ webhooks: Object.fromEntries([...(domain?.urls ?? new Map<string, string[]>())].map(([id, urls]) => [id, { urls }])) }, 200);
  }));
  app.delete('/v3/domains/:domain/webhooks/:id', guarded((c) => {
    const domain = hooks.get(keyOf(c));
    const id = c.req.param('id') ?? '';
    const urls = domain?.urls.get(id) ?? null;
    if (!domain || !urls) return c.json(mailgunError(404, 'Webhook not found').body as object, 404);
    domain.urls.delete(id);
    if (domain.urls.size === 0) hooks.delete(keyOf(c));
    return c.json(webhookAnswer('Webhook has been deleted', urls), 200);
  }));
  app.get('/v5/accounts/http_signing_key', guarded((c) => c.json({ message: 'success', http_signing_key: apiKeyOf(c) }, 200)));
  return app;
}
