/**
 * Vonage's Verify API (v1) through the real `@vonage/server-sdk`: the service
 * makes the code and texts it, the test reads it from the SMS, and the app's
 * check approves it; wrong codes, concurrent requests, cancels and faults
 * answer with Vonage's status codes.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Vonage } from '@vonage/server-sdk';
import { createClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';
import { test, expect } from './fixtures.ts';

test('a request texts a code that the test reads and the app\'s check approves', async ({ phone, local }) => {
  const env = { INBOXKIT_VONAGE_REST_HOST: `${local.url}/sms/vonage` };
  // #region verify
  const vonage = new Vonage({ apiKey: 'test', apiSecret: 'test' }, { restHost: env.INBOXKIT_VONAGE_REST_HOST, apiHost: env.INBOXKIT_VONAGE_REST_HOST });
  const { requestId } = await vonage.verify.start({ number: phone.number.slice(1), brand: 'Acme' });
  const sms = await phone.waitForMessage();
  expect((await vonage.verify.check(requestId, sms.otp())).status).toBe('0');
  // #endregion
  expect(requestId).toMatch(/^[0-9a-f]{32}$/);
  expect(sms.text).toMatch(/^Your Acme verification code is: \d{4}$/);
  expect(sms.from?.address).toBe('Acme');
  expect(sms.headers['x-inboxkit-sms']).toBe('vonage-verify');
  // Approved is spent: checking again is status 6.
  expect((await vonage.verify.check(requestId, sms.otp())).status).toBe('6');
});

test('a wrong code is 16 and the third ends the request with 17; a second request to the number is 10 until then', async ({ phone, local }) => {
  const vonage = new Vonage({ apiKey: 'test', apiSecret: 'test' }, { apiHost: `${local.url}/sms/vonage` });
  const { requestId } = await vonage.verify.start({ number: phone.number.slice(1), brand: 'Acme', codeLength: 6 });
  const code = (await phone.waitForMessage()).otp();
  expect(code).toMatch(/^\d{6}$/);
  const concurrent = await vonage.verify.start({ number: phone.number.slice(1), brand: 'Acme' });
  expect(concurrent).toMatchObject({ status: '10', requestId });
  const wrong = code === '000000' ? '111111' : '000000';
  expect(await vonage.verify.check(requestId, wrong)).toMatchObject({ status: '16', errorText: 'The code provided does not match the expected value' });
  expect((await vonage.verify.check(requestId, wrong)).status).toBe('16');
  expect((await vonage.verify.check(requestId, wrong)).status).toBe('17');
  expect((await vonage.verify.check(requestId, code)).status).toBe('6');
  // The request ended: the number takes a new one.
  expect((await vonage.verify.start({ number: phone.number.slice(1), brand: 'Acme' })).status).toBe('0');
});

test('a request cannot be cancelled in its first 30 seconds (19, and it goes on); after them a cancelled request cannot be checked', async () => {
  const clock = { now: Date.now() };
  const server = await startServer({ port: 0, smtpPort: 0, now: () => clock.now });
  try {
    const phone = await createClient({ baseUrl: server.url }).phones.create();
    const vonage = new Vonage({ apiKey: 'test', apiSecret: 'test' }, { apiHost: `${server.url}/sms/vonage` });
    const { requestId } = await vonage.verify.start({ number: phone.phoneNumber ?? '', brand: 'Acme' });
    const code = (await phone.waitForMessage()).otp();
    expect(await vonage.verify.cancel(requestId)).toMatchObject({ status: '19', errorText: `Verification request ['${requestId}'] can't be cancelled within the first 30 seconds.` });
    clock.now += 30_000;
    expect((await vonage.verify.cancel(requestId)).status).toBe('0');
    expect((await vonage.verify.check(requestId, code)).status).toBe('6');
    expect((await vonage.verify.cancel(requestId)).status).toBe('6');
  } finally {
    await server.close();
  }
});

test('bad input or faults get Vonage\'s status codes with nothing texted', async ({ phone, local }) => {
  const vonage = new Vonage({ apiKey: 'test', apiSecret: 'test' }, { apiHost: `${local.url}/sms/vonage` });

  expect((await vonage.verify.start({ number: '12025551234', brand: 'Acme' })).status).toBe('29');
  expect((await vonage.verify.start({ number: 'abc', brand: 'Acme' })).status).toBe('3');
  expect((await vonage.verify.start({ number: phone.number.slice(1), brand: 'A brand name too long' })).status).toBe('3');
  await phone.failSms('unsubscribed', { count: 1 });
  expect((await vonage.verify.start({ number: phone.number.slice(1), brand: 'Acme' })).status).toBe('7');
  await phone.failSms('invalid', { count: 1 });
  expect((await vonage.verify.start({ number: phone.number.slice(1), brand: 'Acme' })).status).toBe('3');
  await phone.failSms('undeliverable', { count: 1 });
  expect((await vonage.verify.start({ number: phone.number.slice(1), brand: 'Acme' })).status).toBe('0');
  expect((await phone.handle.messages()).items).toEqual([]);
});

test('Verify v2 (verify2, signed with the application\'s JWT) is not offered: the SDK gets 404, and nothing is texted', async ({ phone, local }) => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const vonage = new Vonage({ applicationId: '00000000-0000-4000-8000-000000000000', privateKey }, { apiHost: `${local.url}/sms/vonage` });
  const error = (await vonage.verify2.newRequest({ brand: 'Acme', workflow: [{ channel: 'sms', to: phone.number.slice(1) }] } as never).then(() => null, (e: unknown) => e)) as { response?: { status: number } } | null;
  expect(error?.response?.status).toBe(404);
  expect((await phone.handle.messages()).items).toEqual([]);
});
