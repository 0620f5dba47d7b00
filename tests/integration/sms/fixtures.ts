/**
 * The fixtures of the SMS specs: a local service per worker (the `inboxkit`
 * fixtures, `phone` among them, point at it) and the app's `twilio` client
 * pointed at it.
 */
import type twilio from 'twilio';
import { test as base } from '../../../src/playwright/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { ACCOUNT_SID, AUTH_TOKEN, twilioAt } from './sdks.ts';

export const test = base.extend<{ twilio: twilio.Twilio }, { local: RunningServer }>({
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
  twilio: async ({ local }, use) => use(twilioAt(`${local.url}/sms/twilio`, ACCOUNT_SID, AUTH_TOKEN)),
});

export { expect } from '../../../src/playwright/index.ts';
