/**
 * `PUT /email/templates/{provider}/{id}`: registers a template a send by that
 * provider's template id is rendered with (`{ subject, html, text }`,
 * Handlebars sources); `DELETE` removes it. The template belongs to the
 * caller (see `email/templates.ts`).
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { callerOf } from '../auth/caller.ts';
import type { AppEnv } from '../context/context.ts';
import { parseTemplate } from '../email/templates.ts';
import type { TemplateRegistry } from '../email/templates.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { PROVIDERS } from '../../wire/providers.ts';

const EMAIL_PROVIDERS: readonly string[] = PROVIDERS.filter((row) => row.channel === 'email').map((row) => row.id);

/** The key of the caller a template belongs to. */
export function templateOwnerOf(c: Context<AppEnv>): string {
  return callerOf(c.var.principal, clientAddressOf(c)).key;
}

function problem(c: Context<AppEnv>, status: 400 | 404, message: string): Response {
  return c.json({ error: { code: status === 404 ? 'not_found' : 'validation_error', message } }, status);
}

/** The template routes, mounted at `/email/templates`. */
export function createEmailTemplateRoutes(templates: TemplateRegistry): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.put('/:provider/:id', async (c) => {
    const provider = c.req.param('provider');
    if (!EMAIL_PROVIDERS.includes(provider)) return problem(c, 404, `${provider} is not an email provider this service speaks (${EMAIL_PROVIDERS.join(', ')}).`);
    const template = await parseTemplate(await c.req.json().catch(() => null));
    if ('error' in template) return problem(c, 400, template.error);
    await templates.put(templateOwnerOf(c), provider, c.req.param('id'), template);
    return c.json({ data: { provider, id: c.req.param('id') } }, 200);
  });
  app.delete('/:provider/:id', async (c) => {
    const gone = await templates.delete(templateOwnerOf(c), c.req.param('provider'), c.req.param('id'));
    return gone ? c.body(null, 204) : problem(c, 404, `No template ${c.req.param('id')} for ${c.req.param('provider')} is registered by this caller.`);
  });
  return app;
}
