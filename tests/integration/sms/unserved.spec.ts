/**
 * A call the emulation does not serve answers in its provider's own error
 * shape, naming the call and what is served, so the SDK's exception says it
 * (not `Error: undefined`); and SNS opts a number back in.
 */
import { CheckIfPhoneNumberIsOptedOutCommand, OptInPhoneNumberCommand, SNSClient } from '@aws-sdk/client-sns';
import { test, expect } from './fixtures.ts';

test('twilio messages(sid).fetch() of a sid never sent and Lookup get Twilio\'s 404 (20404) saying why, as the SDK\'s RestException', async ({ twilio }) => {
  const fetched = await twilio.messages('SM0123456789abcdef0123456789abcdef').fetch().then(() => null, (e: unknown) => e as { status: number; code: number; message: string });
  expect({ status: fetched?.status, code: fetched?.code }).toEqual({ status: 404, code: 20404 });
  expect(fetched?.message).toContain('no text with this sid was sent by this account');
  const lookup = await twilio.lookups.v2.phoneNumbers('+12025550123').fetch().then(() => null, (e: unknown) => e as { status: number; message: string });
  expect(lookup?.status).toBe(404);
  expect(lookup?.message).toContain("inboxkit's Twilio emulation serves messages.create(), messages(sid).fetch() and messages.list()");
});

test('Twilio Verify\'s unserved calls answer Twilio\'s 404 too, and its served ones still work', async ({ twilio, phone }) => {
  const service = await twilio.verify.v2.services.create({ friendlyName: 'Acme' });
  const listed = await twilio.verify.v2.services(service.sid).fetch().then(() => null, (e: unknown) => e as { status: number; code: number });
  expect({ status: listed?.status, code: listed?.code }).toEqual({ status: 404, code: 20404 });
  await twilio.verify.v2.services(service.sid).verifications.create({ to: phone.number, channel: 'sms' });
  expect((await phone.waitForMessage()).otp()).toMatch(/^\d{6}$/);
});

test('a Vonage path the emulation does not serve answers Vonage\'s 404 problem body naming what is served', async ({ local }) => {
  const response = await fetch(`${local.url}/sms/vonage/ni/basic/json?number=12025550123`);
  expect(response.status).toBe(404);
  expect(await response.json()).toMatchObject({ title: 'Not Found', detail: expect.stringContaining('sms.send()') });
});

test('SNS OptInPhoneNumber takes an opted-out phone back, as CheckIfPhoneNumberIsOptedOut then says', async ({ local, phone }) => {
  const sns = new SNSClient({ region: 'us-east-1', endpoint: `${local.url}/sms/sns`, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }, maxAttempts: 1 });
  try {
    await phone.failSms('unsubscribed');
    expect((await sns.send(new CheckIfPhoneNumberIsOptedOutCommand({ phoneNumber: phone.number }))).isOptedOut).toBe(true);
    await sns.send(new OptInPhoneNumberCommand({ phoneNumber: phone.number }));
    expect((await sns.send(new CheckIfPhoneNumberIsOptedOutCommand({ phoneNumber: phone.number }))).isOptedOut).toBe(false);
  } finally {
    sns.destroy();
  }
});
