/**
 * Twilio Verify v2 through the real `twilio` SDK: the service makes the code
 * and texts it, the test reads it from the SMS, and the app's check approves it.
 */
import type twilioSdk from 'twilio';
import { createClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';
import { test, expect } from './fixtures.ts';
import { ACCOUNT_SID, AUTH_TOKEN, twilioAt } from './sdks.ts';

type RestException = InstanceType<typeof twilioSdk.RestException>;

async function failure(promise: Promise<unknown>): Promise<RestException | null> {
  return promise.then(
    () => null,
    (error: unknown) => error as RestException,
  );
}

test('a verification texts a code that the test reads and the app\'s VerificationCheck approves', async ({ phone, twilio }) => {
  const service = await twilio.verify.v2.services.create({ friendlyName: 'Acme' });
  expect(service.sid).toMatch(/^VA[0-9a-f]{32}$/);
  const verification = await twilio.verify.v2.services(service.sid).verifications.create({ to: phone.number, channel: 'sms' });
  expect(verification).toMatchObject({ status: 'pending', valid: false, to: phone.number, channel: 'sms' });

  const sms = await phone.waitForMessage();
  expect(sms.text).toMatch(/^Your Acme verification code is: \d{6}$/);
  expect(sms.headers['x-inboxkit-sms']).toBe('twilio-verify');

  const wrong = await twilio.verify.v2.services(service.sid).verificationChecks.create({ to: phone.number, code: sms.otp() === '000000' ? '111111' : '000000' });
  expect(wrong).toMatchObject({ status: 'pending', valid: false });
  const check = await twilio.verify.v2.services(service.sid).verificationChecks.create({ to: phone.number, code: sms.otp() });
  expect(check).toMatchObject({ status: 'approved', valid: true, sid: verification.sid });

  // Approved is spent: checking again finds no pending verification (Twilio's 20404).
  const again = await failure(twilio.verify.v2.services(service.sid).verificationChecks.create({ to: phone.number, code: sms.otp() }));
  expect({ status: again?.status, code: again?.code }).toEqual({ status: 404, code: 20404 });
});

test('a service sid the app was configured with works without creating it, and a resend keeps the code', async ({ phone, twilio }) => {
  const sid = `VA${'ab'.repeat(16)}`;
  await twilio.verify.v2.services(sid).verifications.create({ to: phone.number, channel: 'sms' });
  const first = await phone.waitForMessage();
  await twilio.verify.v2.services(sid).verifications.create({ to: phone.number, channel: 'sms' });
  const second = await phone.waitForMessage();
  expect(second.otp()).toBe(first.otp());
  expect((await twilio.verify.v2.services(sid).verificationChecks.create({ verificationSid: (await twilio.verify.v2.services(sid).verifications.create({ to: phone.number, channel: 'sms' })).sid, code: first.otp() })).status).toBe('approved');
});

test('five wrong codes spend a verification (60202), and bad numbers or channels get 60200', async ({ phone, twilio }) => {
  const verify = twilio.verify.v2.services(`VA${'cd'.repeat(16)}`);
  await verify.verifications.create({ to: phone.number, channel: 'sms' });
  const code = (await phone.waitForMessage()).otp();
  const wrongCode = code === '999999' ? '888888' : '999999';
  for (let i = 0; i < 5; i++) expect((await verify.verificationChecks.create({ to: phone.number, code: wrongCode })).status).toBe('pending');
  const spent = await failure(verify.verificationChecks.create({ to: phone.number, code }));
  expect({ status: spent?.status, code: spent?.code }).toEqual({ status: 429, code: 60202 });

  for (const params of [{ to: '12345', channel: 'sms' }, { to: '+12025551234', channel: 'sms' }, { to: phone.number, channel: 'call' }]) {
    const error = await failure(verify.verifications.create(params));
    expect({ status: error?.status, code: error?.code }, JSON.stringify(params)).toEqual({ status: 400, code: 60200 });
  }
});

test('the operator\'s bounds hold: a phone keeps its newest --sms-verifications-per-phone verifications, a caller its newest --sms-verify-services-per-caller services', async () => {
  const server = await startServer({ port: 0, smtpPort: 0, smsVerificationsPerPhone: 2, smsVerifyServicesPerCaller: 2 });
  try {
    const phone = await createClient({ baseUrl: server.url }).phones.create();
    const number = phone.phoneNumber ?? '';
    const twilio = twilioAt(`${server.url}/sms/twilio`, ACCOUNT_SID, AUTH_TOKEN);
    const services = [];
    for (const friendlyName of ['First', 'Second', 'Third']) services.push(await twilio.verify.v2.services.create({ friendlyName }));
    const codes: string[] = [];
    for (const service of services) {
      await twilio.verify.v2.services(service.sid).verifications.create({ to: number, channel: 'sms' });
      codes.push((await phone.waitForMessage()).otp());
    }
    // The first service is gone (its verification texts the default name), and so is its verification: the phone keeps two.
    const texts = (await phone.messages()).items.length;
    expect(texts).toBe(3);
    const gone = await failure(twilio.verify.v2.services(services[0]!.sid).verificationChecks.create({ to: number, code: codes[0]! }));
    expect({ status: gone?.status, code: gone?.code }).toEqual({ status: 404, code: 20404 });
    expect((await twilio.verify.v2.services(services[2]!.sid).verificationChecks.create({ to: number, code: codes[2]! })).status).toBe('approved');
    await twilio.verify.v2.services(services[0]!.sid).verifications.create({ to: number, channel: 'sms' });
    expect((await phone.waitForMessage()).text).toMatch(/^Your Verify verification code is: \d{6}$/);
  } finally {
    await server.close();
  }
});
