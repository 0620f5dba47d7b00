/**
 * AWS SNS `Publish` to a phone number through the real
 * `@aws-sdk/client-sns`, configured with its `endpoint` option.
 */
import { PublishCommand, SNSClient, SNSServiceException } from '@aws-sdk/client-sns';
import { test, expect } from './fixtures.ts';

test.describe('AWS SNS', () => {
  let sns: SNSClient;
  test.beforeEach(({ local }) => {
    sns = new SNSClient({ region: 'us-east-1', endpoint: `${local.url}/sms/sns`, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }, maxAttempts: 1 });
  });
  test.afterEach(() => sns.destroy());

  test('Publish with a PhoneNumber texts the phone, and the MessageId is the SMS\'s id', async ({ phone }) => {
    const sent = await sns.send(
      new PublishCommand({
        PhoneNumber: phone.number,
        Message: '[Acme] 731904 is your sign-in code.',
        MessageAttributes: { 'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'Acme' } },
      }),
    );
    expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);
    const sms = await phone.waitForMessage({ from: 'Acme' });
    expect(sms.otp()).toBe('731904');
    expect(sms.headers['x-inboxkit-sms']).toBe('sns');
    expect(sms.headers['x-inboxkit-sms-id']).toBe(sent.MessageId);
  });

  test('bad input gets SNS\'s InvalidParameter, as the SDK\'s typed exception, and stores nothing', async ({ phone }) => {
    const cases = [
      { PhoneNumber: '555-0100', Message: 'x' },
      { PhoneNumber: '+12025551234', Message: 'x' },
      { PhoneNumber: phone.number, Message: 'x'.repeat(1601) },
      { TopicArn: 'arn:aws:sns:us-east-1:123456789012:topic', Message: 'x' },
    ];
    for (const input of cases) {
      const error = await sns.send(new PublishCommand(input)).then(() => null, (e: unknown) => e as SNSServiceException);
      expect(error, JSON.stringify(input).slice(0, 80)).toBeInstanceOf(SNSServiceException);
      expect({ name: error?.name, status: error?.$metadata.httpStatusCode }).toEqual({ name: 'InvalidParameterException', status: 400 });
      expect(error?.message).toMatch(/^Invalid parameter: /);
    }
    expect((await phone.handle.messages()).items).toEqual([]);
  });
});
