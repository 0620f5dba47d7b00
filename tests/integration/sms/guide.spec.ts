/**
 * The provider examples of docs/phones.md, run as they are printed there
 * (tests/unit/readme.spec.ts checks that the page quotes these regions): each
 * SDK configured with the variable inboxkitServer() hands the app.
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { Vonage } from '@vonage/server-sdk';
import { test, expect } from './fixtures.ts';
import { twilioAt } from './sdks.ts';

test('the guide\'s SNS, Vonage and plain examples each text the phone', async ({ phone, local }) => {
  // What inboxkitServer() puts in the app's environment (inboxkit.env), for this service.
  const env = { INBOXKIT_SNS_ENDPOINT: `${local.url}/sms/sns`, INBOXKIT_VONAGE_REST_HOST: `${local.url}/sms/vonage`, INBOXKIT_SMS_URL: `${local.url}/api/v1/sms` };
  const to = phone.number;

  // #region sns
  const sns = new SNSClient({ region: 'us-east-1', endpoint: env.INBOXKIT_SNS_ENDPOINT, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  await sns.send(new PublishCommand({ PhoneNumber: to, Message: 'Your Acme code is 100001' }));
  // #endregion
  sns.destroy();
  expect((await phone.waitForMessage()).otp()).toBe('100001');

  // #region vonage
  const vonage = new Vonage({ apiKey: 'test', apiSecret: 'test' }, { restHost: env.INBOXKIT_VONAGE_REST_HOST });
  await vonage.sms.send({ to: to.slice(1), from: 'Acme', text: 'Your Acme code is 100002' });
  // #endregion
  expect((await phone.waitForMessage()).otp()).toBe('100002');

  // #region plain
  await fetch(env.INBOXKIT_SMS_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to, from: 'Acme', text: 'Your Acme code is 100003' }),
  });
  // #endregion
  expect((await phone.waitForMessage()).otp()).toBe('100003');

  const client = twilioAt(`${local.url}/sms/twilio`, `AC${'1'.repeat(32)}`, 'token');
  await client.messages.create({ to, from: '+15005550006', body: 'Your Acme code is 100004' });
  expect((await phone.waitForMessage()).otp()).toBe('100004');
});
