/**
 * The plain SMS intake (`POST /api/v1/sms`) for apps with a sender of their
 * own, and the provider intakes on a shared service: authenticated by an
 * inboxkit API key where the provider's secret goes, and limited to the
 * key's own phones.
 */
import { test as base, expect } from '@playwright/test';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type twilioSdk from 'twilio';
import { createClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { test as local } from './fixtures.ts';
import { ACCOUNT_SID, AUTH_TOKEN, twilioAt } from './sdks.ts';

const KEY = 'tm_sms_tests_key_one_0123456789abcd';
const OTHER_KEY = 'tm_sms_tests_key_two_0123456789abcd';

local('POST /api/v1/sms texts a phone, announced on its stream like any SMS, and refuses numbers without a phone', async ({ phone, local: server }) => {
  const waiting = phone.waitForMessage();
  const answer = await fetch(`${server.url}/api/v1/sms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: phone.number, from: 'Acme', text: 'G-552211 is your Google verification code.' }) });
  expect(answer.status).toBe(200);
  const { data } = (await answer.json()) as { data: { messageId: string; seq: number; segments: number } };
  expect(data).toMatchObject({ seq: 1, segments: 1 });
  const sms = await waiting;
  expect(sms.id).toBe(data.messageId);
  expect(sms.otp()).toBe('552211');

  // 555-1234 is outside the 555-0100–0199 range the service hands out, so no test's phone can have it.
  for (const [body, status, code] of [
    [{ to: '+12025551234', text: 'x' }, 404, 'inbox_not_found'],
    [{ to: '2025550100', text: 'x' }, 400, 'validation_error'],
    [{ to: phone.number, text: '' }, 400, 'validation_error'],
    [{ to: phone.number, text: 'x'.repeat(1601) }, 400, 'validation_error'],
  ] as const) {
    const refused = await fetch(`${server.url}/api/v1/sms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(refused.status, JSON.stringify(body).slice(0, 60)).toBe(status);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(code);
  }
});

const shared = base.extend<{ server: RunningServer }>({
  // eslint-disable-next-line no-empty-pattern
  server: async ({}, use) => {
    // Bound to every interface: a shared service, where the intakes need an API key.
    const server = await startServer({ host: '0.0.0.0', port: 0, smtpPort: 0, apiKeys: [KEY, OTHER_KEY] });
    await use(server);
    await server.close();
  },
});

shared('on a shared service the intakes take an API key where the provider\'s secret goes, and reach only that key\'s phones', async ({ server }) => {
  const url = `http://127.0.0.1:${new URL(server.url).port}`;
  const clients = [createClient({ baseUrl: url, apiKey: KEY }), createClient({ baseUrl: url, apiKey: OTHER_KEY })];
  const mine = await clients[0]!.phones.create();
  const theirs = await clients[1]!.phones.create();
  const number = mine.phoneNumber!;

  const anonymous = await twilioAt(`${url}/sms/twilio`, ACCOUNT_SID, AUTH_TOKEN).messages.create({ to: number, from: '+15005550006', body: 'code 1' }).then(() => null, (e: unknown) => e as InstanceType<typeof twilioSdk.RestException>);
  expect({ status: anonymous?.status, code: anonymous?.code }).toEqual({ status: 401, code: 20003 });

  const keyed = twilioAt(`${url}/sms/twilio`, ACCOUNT_SID, KEY);
  await keyed.messages.create({ to: number, from: '+15005550006', body: 'code 246810' });
  expect((await mine.waitForMessage(undefined, { timeout: 10_000 })).otp()).toBe('246810');
  const other = await keyed.messages.create({ to: theirs.phoneNumber!, from: '+15005550006', body: 'code 2' }).then(() => null, (e: unknown) => e as InstanceType<typeof twilioSdk.RestException>);
  expect(other?.code).toBe(21612);

  const snsAnonymous = new SNSClient({ region: 'us-east-1', endpoint: `${url}/sms/sns`, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 's' }, maxAttempts: 1 });
  const snsKeyed = new SNSClient({ region: 'us-east-1', endpoint: `${url}/sms/sns`, credentials: { accessKeyId: KEY, secretAccessKey: 'unused' }, maxAttempts: 1 });
  try {
    const refused = await snsAnonymous.send(new PublishCommand({ PhoneNumber: number, Message: 'code 3' })).then(() => null, (e: unknown) => e as Error);
    expect(refused?.name).toBe('InvalidClientTokenId');
    await snsKeyed.send(new PublishCommand({ PhoneNumber: number, Message: 'code 135791' }));
    expect((await mine.waitForMessage(undefined, { timeout: 10_000 })).otp()).toBe('135791');
  } finally {
    snsAnonymous.destroy();
    snsKeyed.destroy();
  }

  const plain = await fetch(`${url}/api/v1/sms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: number, text: 'code 4' }) });
  expect(plain.status).toBe(401);
  expect((await mine.messages()).items).toHaveLength(2);
  await Promise.all(clients.map((client) => client.close()));
});
