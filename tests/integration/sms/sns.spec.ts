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
    ];
    for (const input of cases) {
      const error = await sns.send(new PublishCommand(input)).then(() => null, (e: unknown) => e as SNSServiceException);
      expect(error, JSON.stringify(input).slice(0, 80)).toBeInstanceOf(SNSServiceException);
      expect({ name: error?.name, status: error?.$metadata.httpStatusCode }).toEqual({ name: 'InvalidParameterException', status: 400 });
      expect(error?.message).toMatch(/^Invalid parameter: /);
    }
    const toNoTopic = await sns.send(new PublishCommand({ TopicArn: 'arn:aws:sns:us-east-1:123456789012:topic', Message: 'x' })).then(() => null, (e: unknown) => e as SNSServiceException);
    expect({ name: toNoTopic?.name, status: toNoTopic?.$metadata.httpStatusCode }).toEqual({ name: 'NotFoundException', status: 404 });
    expect((await phone.handle.messages()).items).toEqual([]);
  });
});

test.describe('AWS SNS error XML', () => {
  test('echoes a parameter with control characters as well-formed XML: the SDK still raises InvalidParameterException, the characters XML cannot carry replaced', async ({ local }) => {
    const sns = new SNSClient({ region: 'us-east-1', endpoint: `${local.url}/sms/sns`, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }, maxAttempts: 1 });
    try {
      const hostile = '+1\u0000\u0001\u0008\u000b\u001b[31m\u007f\u0085\r<&>"\'\uFFFF';
      const error = await sns.send(new PublishCommand({ PhoneNumber: hostile, Message: 'x' })).then(() => null, (e: unknown) => e as SNSServiceException);
      expect(error).toBeInstanceOf(SNSServiceException);
      expect({ name: error?.name, status: error?.$metadata.httpStatusCode }).toEqual({ name: 'InvalidParameterException', status: 400 });
      // What XML can carry comes back as sent (markup, DEL, NEL, CR); the rest as U+FFFD, one each.
      expect(error?.message).toContain('+1\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD[31m\u007f\u0085\r<&>"\'\uFFFD is not valid to publish to');

      const raw = await fetch(`${local.url}/sms/sns`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ Action: 'Publish', PhoneNumber: hostile, Message: 'x' }).toString(),
      });
      const xml = await raw.text();
      expect(raw.status).toBe(400);
      // Nothing outside XML 1.0's Char production, and no raw markup from the input.
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDFFF]/);
      expect(xml).toContain('&lt;&amp;&gt;&quot;&apos;');
    } finally {
      sns.destroy();
    }
  });
});
