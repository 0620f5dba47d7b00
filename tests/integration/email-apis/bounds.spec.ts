/**
 * The bounds of SMTP hold on the email providers' APIs: recipients per send
 * (`maxRecipients`) and the size of a message (`maxMessageBytes`), each
 * refused in the provider's own error shape with nothing stored.
 */
import { test as base, expect } from '@playwright/test';
import { Resend } from 'resend';
import { createClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

const test = base.extend<{ server: RunningServer }>({
  // eslint-disable-next-line no-empty-pattern
  server: async ({}, use) => {
    const server = await startServer({ port: 0, smtpPort: 0, maxRecipients: 2, maxMessageBytes: 20_000, maxStoredBytes: 1_000_000 });
    await use(server);
    await server.close();
  },
});

test('a send over --max-recipients or --max-message-size is the provider\'s error, and nothing is stored', async ({ server }) => {
  const client = createClient({ baseUrl: server.url });
  const inboxes = await Promise.all([client.inboxes.create(), client.inboxes.create(), client.inboxes.create()]);
  const resend = new Resend('re_test', { baseUrl: `${server.url}/email/resend` });
  const tooMany = await resend.emails.send({ from: 'a@acme.test', to: inboxes.map((i) => i.address), subject: 'Many', text: 'x' });
  expect(tooMany.error).toMatchObject({ statusCode: 422, message: expect.stringContaining('--max-recipients') });
  const tooLarge = await resend.emails.send({ from: 'a@acme.test', to: inboxes[0]!.address, subject: 'Large', text: 'x'.repeat(30_000) });
  expect(tooLarge.error).toMatchObject({ statusCode: 413, message: expect.stringContaining('20000 bytes') });
  const fits = await resend.emails.send({ from: 'a@acme.test', to: inboxes[0]!.address, subject: 'Fits', text: 'code 112233' });
  expect(fits.error).toBeNull();
  expect((await inboxes[0]!.waitForMessage(undefined, { timeout: 10_000 })).subject).toBe('Fits');
  for (const inbox of inboxes) expect((await inbox.messages()).items.map((m) => m.subject)).toEqual(inbox === inboxes[0] ? ['Fits'] : []);
  await client.close();
});

base('copies sent through an email provider\'s API are counted in /metrics by the provider, beside SMTP\'s', async () => {
  const server = await startServer({ port: 0, smtpPort: 0, metrics: true });
  try {
    const client = createClient({ baseUrl: server.url });
    const [a, b] = [await client.inboxes.create(), await client.inboxes.create()];
    await new Resend('re_test', { baseUrl: `${server.url}/email/resend` }).emails.send({ from: 'x@acme.test', to: [a.address, b.address], subject: 'Counted', text: 'x' });
    await a.waitForMessage(undefined, { timeout: 10_000 });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/inboxkit_intake_stored_total\{channel="resend"\} 2/);
    await client.close();
  } finally {
    await server.close();
  }
});
