/**
 * Twilio Verify v2 through the real `twilio` SDK: the service makes the code
 * and texts it, the test reads it from the SMS, and the app's check approves it.
 */
import type twilioSdk from 'twilio';
import { test, expect } from './fixtures.ts';

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
