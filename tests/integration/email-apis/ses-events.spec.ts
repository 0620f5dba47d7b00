/**
 * SES's events through SNS, as an app subscribes to them: an SNS topic and
 * an HTTP subscription made with `@aws-sdk/client-sns` (the confirmation
 * round trip included), a configuration set with an SNS event destination
 * made with `@aws-sdk/client-sesv2` (and v1's `@aws-sdk/client-ses`), then
 * SES's event records in SNS's signed `Notification`s, verified by the SNS
 * message validator (`sns-validator`) unmodified, its certificate fetched
 * over https from the service.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { CreateConfigurationSetCommand, CreateConfigurationSetEventDestinationCommand, SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { SESClient, SendEmailCommand as SendEmailV1Command, CreateConfigurationSetCommand as CreateConfigurationSetV1Command, CreateConfigurationSetEventDestinationCommand as CreateEventDestinationV1Command } from '@aws-sdk/client-ses';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { test, expect } from './fixtures.ts';

/** The validator as its README documents it: `new MessageValidator(hostPattern).validate(message, callback)`. */
interface Validator {
  validate(message: Record<string, string>, callback: (error: Error | null, message?: Record<string, string>) => void): void;
}
const MessageValidator = createRequire(import.meta.url)('sns-validator') as new (hostPattern?: RegExp) => Validator;

const credentials = { accessKeyId: 'AKIAINBOXKITTEST', secretAccessKey: 'secret' };

/** What the app's endpoint received: each post, and whether the validator verified it. */
interface Received {
  type: string;
  message: Record<string, string>;
  verified: string;
}

/** The app's SNS endpoint: it validates each post as apps do, and confirms its subscription by visiting SubscribeURL. */
async function snsEndpoint(validator: Validator): Promise<{ url: string; received: Received[]; confirmations: number[]; server: Server }> {
  const received: Received[] = [];
  const confirmations: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(body) as Record<string, string>;
      validator.validate(message, (error) => {
        received.push({ type: String(req.headers['x-amz-sns-message-type']), message, verified: error ? error.message : 'yes' });
        if (!error && message.Type === 'SubscriptionConfirmation') void fetch(message.SubscribeURL ?? '').then((r) => confirmations.push(r.status));
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ses-events`, received, confirmations, server };
}

// #region trust
/** Trusts the service's SNS signing certificate in this process's https, as an app does with NODE_EXTRA_CA_CERTS. */
async function trustSigningCertificate(snsEndpointUrl: string): Promise<string> {
  const pem = await (await fetch(`${snsEndpointUrl}/SigningCert.pem`)).text();
  if (!getCACertificates('default').includes(pem)) setDefaultCACertificates([...getCACertificates('default'), pem]);
  return pem;
}

/** The validator's host pattern: the service's host (its default admits only sns.<region>.amazonaws.com). */
const LOCAL_HOST = /^127\.0\.0\.1:\d+$/;
// #endregion

test('SES events reach an SNS subscription as signed Notifications the SNS message validator verifies: Send and Delivery', async ({ env, inbox }) => {
  await trustSigningCertificate(env.INBOXKIT_SNS_ENDPOINT ?? '');
  const app = await snsEndpoint(new MessageValidator(LOCAL_HOST));
  try {
    // #region subscribe
    const sns = new SNSClient({ endpoint: env.INBOXKIT_SNS_ENDPOINT, region: 'eu-west-1', credentials });
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'ses-events', Attributes: { SignatureVersion: '2' } }));
    expect(TopicArn).toBe('arn:aws:sns:eu-west-1:000000000000:ses-events');
    const subscribed = await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: app.url }));
    expect(subscribed.SubscriptionArn).toBe('pending confirmation');
    await expect.poll(() => app.received.map((r) => `${r.type} ${r.verified}`)).toEqual(['SubscriptionConfirmation yes']);
    await expect.poll(() => app.confirmations).toEqual([200]);

    const ses = new SESv2Client({ endpoint: env.INBOXKIT_SES_ENDPOINT, region: 'eu-west-1', credentials });
    await ses.send(new CreateConfigurationSetCommand({ ConfigurationSetName: 'tracked' }));
    await ses.send(new CreateConfigurationSetEventDestinationCommand({ ConfigurationSetName: 'tracked', EventDestinationName: 'to-sns', EventDestination: { Enabled: true, MatchingEventTypes: ['SEND', 'DELIVERY', 'BOUNCE'], SnsDestination: { TopicArn } } }));
    const sent = await ses.send(new SendEmailCommand({ FromEmailAddress: 'no-reply@acme.test', Destination: { ToAddresses: [inbox.address] }, ConfigurationSetName: 'tracked', Content: { Simple: { Subject: { Data: 'Tracked' }, Body: { Text: { Data: 'code 424242' } } } } }));
    // #endregion
    expect((await inbox.waitForMessage({ subject: 'Tracked' })).otp()).toBe('424242');

    const events = () => app.received.filter((r) => r.type === 'Notification').map((r) => JSON.parse(r.message.Message ?? '{}') as { eventType: string; mail: { messageId: string; tags: Record<string, string[]> } });
    await expect.poll(() => events().map((e) => e.eventType).sort()).toEqual(['Delivery', 'Send']);
    const notifications = app.received.filter((r) => r.type === 'Notification');
    expect(notifications.map((r) => [r.verified, r.message.SignatureVersion, r.message.Subject])).toEqual([
      ['yes', '2', 'Amazon SES Email Event Notification'],
      ['yes', '2', 'Amazon SES Email Event Notification'],
    ]);
    expect(events().every((e) => e.mail.messageId === sent.MessageId && e.mail.tags['ses:configuration-set']?.[0] === 'tracked')).toBe(true);
    expect(JSON.stringify(events().find((e) => e.eventType === 'Delivery'))).toContain(inbox.address);
  } finally {
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
  }
});

test('a recipient whose inbox fails permanently is a Bounce event, a Notification changed on its way fails the validator, and its UnsubscribeURL ends the subscription', async ({ env, inbox, createInbox }) => {
  await trustSigningCertificate(env.INBOXKIT_SNS_ENDPOINT ?? '');
  const app = await snsEndpoint(new MessageValidator(LOCAL_HOST));
  try {
    const sns = new SNSClient({ endpoint: env.INBOXKIT_SNS_ENDPOINT, region: 'us-east-1', credentials });
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'ses-bounces' }));
    await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: app.url }));
    await expect.poll(() => app.confirmations).toEqual([200]);
    const ses = new SESClient({ endpoint: env.INBOXKIT_SES_ENDPOINT, region: 'us-east-1', credentials });
    await ses.send(new CreateConfigurationSetV1Command({ ConfigurationSet: { Name: 'bounces' } }));
    await ses.send(new CreateEventDestinationV1Command({ ConfigurationSetName: 'bounces', EventDestination: { Name: 'sns', Enabled: true, MatchingEventTypes: ['bounce'], SNSDestination: { TopicARN: TopicArn } } }));
    const bouncing = await createInbox();
    await bouncing.failDeliveries({ code: 550, enhancedStatus: '5.2.2' });
    await ses.send(new SendEmailV1Command({ Source: 'a@acme.test', Destination: { ToAddresses: [inbox.address, bouncing.address] }, ConfigurationSetName: 'bounces', Message: { Subject: { Data: 'Bouncing' }, Body: { Text: { Data: 'x' } } } }));
    await expect.poll(() => app.received.filter((r) => r.type === 'Notification').length).toBe(1);
    const [notification] = app.received.filter((r) => r.type === 'Notification');
    expect(notification?.verified).toBe('yes');
    expect(notification?.message.SignatureVersion).toBe('1');
    const event = JSON.parse(notification?.message.Message ?? '{}') as { eventType: string; bounce: { bounceType: string; bouncedRecipients: Array<{ emailAddress: string; status: string }> } };
    expect(event.eventType).toBe('Bounce');
    expect(event.bounce.bounceType).toBe('Permanent');
    expect(event.bounce.bouncedRecipients).toEqual([expect.objectContaining({ emailAddress: bouncing.address, status: '5.2.2' })]);

    const tampered = { ...notification!.message, Message: notification!.message.Message!.replace('Bounce', 'Delivery') };
    const verdict = await new Promise<string>((resolve) => new MessageValidator(LOCAL_HOST).validate(tampered, (error) => resolve(error ? error.message : 'verified')));
    expect(verdict).toBe('The message signature is invalid.');

    // The UnsubscribeURL ends the subscription: subscribing again is a new one, confirmed anew.
    expect((await fetch(notification!.message.UnsubscribeURL ?? '')).status).toBe(200);
    await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: app.url }));
    await expect.poll(() => app.received.filter((r) => r.type === 'SubscriptionConfirmation').length).toBe(2);
  } finally {
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
  }
});

test('what SES and SNS refuse here is their own named exception: an unknown configuration set, a topic of no one, a subscription to a non-loopback host', async ({ env, inbox }) => {
  const ses = new SESv2Client({ endpoint: env.INBOXKIT_SES_ENDPOINT, region: 'us-east-1', credentials });
  const send = ses.send(new SendEmailCommand({ FromEmailAddress: 'a@acme.test', Destination: { ToAddresses: [inbox.address] }, ConfigurationSetName: 'never-made', Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } } }));
  await expect(send).rejects.toMatchObject({ name: 'NotFoundException', message: expect.stringContaining('never-made') });
  await ses.send(new CreateConfigurationSetCommand({ ConfigurationSetName: 'lonely' }));
  const destination = ses.send(new CreateConfigurationSetEventDestinationCommand({ ConfigurationSetName: 'lonely', EventDestinationName: 'x', EventDestination: { MatchingEventTypes: ['SEND'], SnsDestination: { TopicArn: 'arn:aws:sns:us-east-1:000000000000:nobody' } } }));
  await expect(destination).rejects.toMatchObject({ name: 'BadRequestException', message: expect.stringContaining('CreateTopic') });
  const sns = new SNSClient({ endpoint: env.INBOXKIT_SNS_ENDPOINT, region: 'us-east-1', credentials });
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'elsewhere' }));
  await expect(sns.send(new SubscribeCommand({ TopicArn, Protocol: 'https', Endpoint: 'https://hooks.example.com/ses' }))).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringContaining('not a loopback host') });
  await expect(sns.send(new SubscribeCommand({ TopicArn, Protocol: 'email', Endpoint: inbox.address }))).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringContaining('http and https') });
  await inbox.expectNoMessage({}, { within: 300 });
});
