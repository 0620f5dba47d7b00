/**
 * The fixtures of the email-provider specs: a local service per worker (the
 * `inboxkit` fixtures, `inbox` among them, point at it), whose provider
 * URLs each SDK is pointed at as an app points it (`server.env`).
 */
import { test as base } from '../../../src/playwright/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { providerEnv } from '../../../src/wire/providers.ts';

export const test = base.extend<{ env: Record<string, string> }, { local: RunningServer }>({
  local: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startServer({ port: 0, smtpPort: 0 });
      await use(server);
      await server.close();
    },
    { scope: 'worker' },
  ],
  inboxkit: [async ({ local }, use) => use({ baseUrl: local.url }), { scope: 'worker' }],
  /** The variables `inboxkitServer()` hands an app, for this worker's service. */
  env: async ({ local }, use) => use(providerEnv(local.url)),
});

export { expect } from '../../../src/playwright/index.ts';

/** A verification mail's HTML, with a link and a six-digit code. */
export function verificationHtml(link: string, code: string): string {
  return `<p>Welcome to Acme.</p><p><a href="${link}">Confirm your email</a></p><p>Or enter the code <b>${code}</b>.</p>`;
}

/** Registers a template with the service for a provider's template id, as a test does before the app sends by it. */
export async function registerTemplate(baseUrl: string, provider: string, id: string, template: { subject: string; html?: string; text?: string }): Promise<void> {
  const response = await fetch(`${baseUrl}/email/templates/${provider}/${encodeURIComponent(id)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(template) });
  if (!response.ok) throw new Error(`registering template ${id}: ${response.status} ${await response.text()}`);
}
