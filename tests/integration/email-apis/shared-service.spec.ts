/**
 * On a shared service the email providers' APIs take an inboxkit API key
 * where the provider's key goes, reach only that key's inboxes, and refuse
 * anything else with the provider's own authentication error.
 */
import { test as base, expect } from '@playwright/test';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { ServerClient } from 'postmark';
import { Resend } from 'resend';
import { createClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

const KEY = 'tm_email_tests_key_one_0123456789ab';
const OTHER_KEY = 'tm_email_tests_key_two_0123456789ab';

const test = base.extend<{ server: RunningServer }>({
  // eslint-disable-next-line no-empty-pattern
  server: async ({}, use) => {
    // Bound to every interface: a shared service, where the intakes need an API key.
    const server = await startServer({ host: '0.0.0.0', port: 0, smtpPort: 0, apiKeys: [KEY, OTHER_KEY] });
    await use(server);
    await server.close();
  },
});

test('a provider key is refused with the provider\'s own error; an inboxkit key sends, to its own inboxes only', async ({ server }) => {
  const url = `http://127.0.0.1:${new URL(server.url).port}`;
  const clients = [createClient({ baseUrl: url, apiKey: KEY }), createClient({ baseUrl: url, apiKey: OTHER_KEY })];
  const mine = await clients[0]!.inboxes.create();
  const theirs = await clients[1]!.inboxes.create();
  const email = (to: string, subject: string) => ({ from: 'a@acme.test', to, subject, text: 'code 314159' });

  const refused = await new Resend('re_provider_key', { baseUrl: `${url}/email/resend` }).emails.send(email(mine.address, 'Refused'));
  expect(refused.error).toMatchObject({ statusCode: 403, name: 'invalid_api_key' });
  const keyed = new Resend(KEY, { baseUrl: `${url}/email/resend` });
  expect((await keyed.emails.send(email(mine.address, 'Keyed'))).error).toBeNull();
  expect((await mine.waitForMessage({ subject: 'Keyed' }, { timeout: 10_000 })).otp()).toBe('314159');
  expect((await keyed.emails.send(email(theirs.address, 'Not yours'))).error).toMatchObject({ statusCode: 422, message: expect.stringContaining('this caller may send to') });

  const postmark = await new ServerClient('provider-token', { requestHost: `${url.replace('http://', '')}/email/postmark`, useHttps: false }).sendEmail({ From: 'a@acme.test', To: mine.address, Subject: 'x', TextBody: 'x' }).then(() => null, (e: unknown) => e as { statusCode: number; code: number });
  expect(postmark).toMatchObject({ statusCode: 401, code: 10 });
  await new ServerClient(KEY, { requestHost: `${url.replace('http://', '')}/email/postmark`, useHttps: false }).sendEmail({ From: 'a@acme.test', To: mine.address, Subject: 'Postmark keyed', TextBody: 'code 271828' });
  expect((await mine.waitForMessage({ subject: 'Postmark keyed' }, { timeout: 10_000 })).otp()).toBe('271828');

  const ses = new SESv2Client({ endpoint: `${url}/email/ses`, region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 's' }, maxAttempts: 1 });
  try {
    const sesRefused = await ses.send(new SendEmailCommand({ FromEmailAddress: 'a@acme.test', Destination: { ToAddresses: [mine.address] }, Content: { Simple: { Subject: { Data: 'x' }, Body: { Text: { Data: 'x' } } } } })).then(() => null, (e: unknown) => e as Error);
    expect(sesRefused?.name).toBe('UnrecognizedClientException');
  } finally {
    ses.destroy();
  }
  expect((await theirs.messages()).items).toHaveLength(0);
  expect((await mine.messages()).items).toHaveLength(2);
  await Promise.all(clients.map((client) => client.close()));
});

test('a webhook to a loopback URL is refused when it is registered on a shared service the operator has not allowed it on, in each provider\'s words', async ({ server }) => {
  const url = `http://127.0.0.1:${new URL(server.url).port}`;
  const target = 'http://127.0.0.1:9/hooks';
  const resend = await new Resend(KEY, { baseUrl: `${url}/email/resend` }).webhooks.create({ endpoint: target, events: ['email.delivered'] });
  expect(resend.error?.message).toMatch(/--webhook-allow|not allowed|shared/i);
  const postmark = await new ServerClient(KEY, { requestHost: `${url.replace('http://', '')}/email/postmark`, useHttps: false })
    .createWebhook({ Url: target, Triggers: { Delivery: { Enabled: true } } })
    .then(() => null, (e: unknown) => e as { message: string });
  expect(postmark?.message).toMatch(/Invalid webhook Url: .*(--webhook-allow|not allowed|shared)/i);
  const sendgrid = await fetch(`${url}/email/sendgrid/v3/user/webhooks/event/settings`, { method: 'PATCH', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ enabled: true, url: target, delivered: true }) });
  expect(sendgrid.status).toBe(400);
  expect(await sendgrid.text()).toMatch(/--webhook-allow|not allowed|shared/i);
});
