/**
 * The MCP tools and the email providers' APIs: get_app_settings tells an
 * agent where to point the app (SMTP, each provider's variable and SDK
 * option), and a message read through the tools says how it came.
 */
import { test, expect } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { Resend } from 'resend';
import { spawnServe } from '../../support/serve.ts';
import type { Ready } from '../../support/serve.ts';
import { call, connect, inboxIdOf, sendConfirmation } from './support.ts';
import type { Connected } from './support.ts';

let service: Ready;
let child: ChildProcess | undefined;
let agent: Connected;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  service = (await spawnServe(['--rate-limit', 'off'], { onSpawn: (c) => (child = c) })).ready;
  agent = await connect('http', service);
});

test.afterAll(async () => {
  await agent.close().catch(() => {});
  child?.kill('SIGTERM');
});

test('get_app_settings names the SMTP listener and, per provider, the variable, its value for this service and the SDK option', async () => {
  const all = await call(agent.client, 'get_app_settings');
  expect(all.isError).toBe(false);
  expect(all.text).toContain(`SMTP: host ${service.smtpHost}, port ${service.smtpPort}`);
  expect(all.text).toContain(`- Resend (email): INBOXKIT_RESEND_BASE_URL=${service.url}/email/resend — resend, option baseUrl`);
  expect(all.text).toContain(`INBOXKIT_SNS_ENDPOINT=${service.url}/sms/sns`);
  const postmark = await call(agent.client, 'get_app_settings', { provider: 'postmark' });
  expect(postmark.text.split('\n').filter((line) => line.startsWith('- '))).toEqual([`- Postmark (email): INBOXKIT_POSTMARK_REQUEST_HOST=${service.url.replace(/^http:\/\//, '')}/email/postmark — postmark, option requestHost (with useHttps: false)`]);
  const sms = await call(agent.client, 'get_app_settings', { channel: 'sms' });
  expect(sms.text).not.toContain('SMTP:');
  expect(sms.text).not.toContain('(email)');
  const unknown = await call(agent.client, 'get_app_settings', { provider: 'sparkpost' });
  expect(unknown.isError).toBe(true);
  expect(unknown.text).toContain('sparkpost is not a provider this service speaks; the ids are twilio');
});

test('wait_for_message says a message came through Resend\'s API, with the id Resend answered, and another over SMTP', async () => {
  const { id, address } = inboxIdOf((await call(agent.client, 'create_inbox', { label: 'came by' })).text);
  const sent = await new Resend('re_test_key', { baseUrl: `${service.url}/email/resend` }).emails.send({ from: 'a@acme.test', to: address, subject: 'Through Resend', html: '<p>code 616161</p>' });
  const viaResend = await call(agent.client, 'wait_for_message', { inbox_id: id, subject: 'Through Resend', timeout_seconds: 60 });
  expect(viaResend.text).toContain(`Came by: Resend's API (email), id ${sent.data?.id}`);
  await sendConfirmation(service, address, '373737', 'Over SMTP');
  const viaSmtp = await call(agent.client, 'wait_for_message', { inbox_id: id, subject: 'Over SMTP', timeout_seconds: 60 });
  expect(viaSmtp.text).toContain('Came by: SMTP');
});
