import { test as base } from '@playwright/test';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer, StartServerOptions } from '../../../src/server/index.ts';
import { createClient } from '../../../src/client/index.ts';
import type { ClientOptions, InboxkitClient } from '../../../src/client/index.ts';

/** API keys the test server accepts; each is its own premium user. */
export const KEY = 'tm_client_tests_key_one_0123456789';
export const OTHER_KEY = 'tm_client_tests_key_two_0123456789';

export interface ClientFixtures {
  serverOptions: StartServerOptions;
  server: RunningServer;
  /** Makes a client of the server (closed after the test). */
  makeClient: (options?: Partial<ClientOptions>) => InboxkitClient;
  /** A client without credentials. */
  guest: InboxkitClient;
  /** A client with {@link KEY}. */
  keyed: InboxkitClient;
  /** Sends mail over SMTP to the server (one pooled connection per test). */
  send: (mail: SendMailOptions) => Promise<void>;
}

export const test = base.extend<ClientFixtures>({
  serverOptions: [{}, { option: true }],
  server: async ({ serverOptions }, use) => {
    const server = await startServer({ apiKeys: [KEY, OTHER_KEY], ...serverOptions });
    await use(server);
    await server.close();
  },
  makeClient: async ({ server }, use) => {
    const clients: InboxkitClient[] = [];
    await use((options = {}) => {
      const client = createClient({ baseUrl: server.url, ...options });
      clients.push(client);
      return client;
    });
    await Promise.all(clients.map((c) => c.close()));
  },
  guest: async ({ makeClient }, use) => use(makeClient()),
  keyed: async ({ makeClient }, use) => use(makeClient({ apiKey: KEY })),
  send: async ({ server }, use) => {
    const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity });
    await use(async (mail) => {
      await transport.sendMail({ from: 'App <app@example.test>', ...mail });
    });
    transport.close();
  },
});

export { expect } from '@playwright/test';
