/**
 * Amazon SES v1 through the real `@aws-sdk/client-ses` (the Query protocol,
 * XML answers), pointed at the same endpoint as v2: SendEmail, SendRawEmail
 * and SendTemplatedEmail land in the inboxes, and SES's v1 errors are the
 * SDK's named exceptions.
 */
import { CreateTemplateCommand, SendEmailCommand, SendRawEmailCommand, SendTemplatedEmailCommand, SESClient } from '@aws-sdk/client-ses';
import MailComposer from 'nodemailer/lib/mail-composer';
import { test, expect, verificationHtml } from './fixtures.ts';

function sesAt(env: Record<string, string>): SESClient {
  return new SESClient({ endpoint: env.INBOXKIT_SES_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'AKIAINBOXKITTEST', secretAccessKey: 'secret' }, maxAttempts: 1 });
}

test('SendEmail stores the verification mail under the MessageId of its XML answer, and link() and otp() read it', async ({ env, inbox }) => {
  const sent = await sesAt(env).send(new SendEmailCommand({ Source: 'no-reply@acme.test', Destination: { ToAddresses: [inbox.address] }, Message: { Subject: { Data: 'Confirm your email' }, Body: { Html: { Data: verificationHtml('https://app.acme.test/v1?x=1', '606060') } } }, Tags: [{ Name: 'flow', Value: 'signup' }] }));
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
  expect(message.link('Confirm your email').href).toBe('https://app.acme.test/v1?x=1');
  expect(message.otp()).toBe('606060');
  expect(message.headers['x-inboxkit-via-id']).toBe(sent.MessageId);
});

test('SendRawEmail stores the MIME to its Destinations; SendTemplatedEmail renders a template made with CreateTemplate', async ({ env, createInbox }) => {
  const ses = sesAt(env);
  const [a, b] = [await createInbox(), await createInbox()];
  const raw = await new MailComposer({ from: 'a@acme.test', to: a.address, subject: 'Raw v1', text: 'code 707070' }).compile().build();
  await ses.send(new SendRawEmailCommand({ RawMessage: { Data: raw }, Destinations: [a.address, b.address] }));
  for (const inbox of [a, b]) expect((await inbox.waitForMessage({ subject: 'Raw v1' })).otp()).toBe('707070');
  const name = `v1-${Date.now()}`;
  await ses.send(new CreateTemplateCommand({ Template: { TemplateName: name, SubjectPart: 'Code for {{name}}', TextPart: 'Your code: {{code}}' } }));
  await ses.send(new SendTemplatedEmailCommand({ Source: 'a@acme.test', Destination: { ToAddresses: [b.address] }, Template: name, TemplateData: JSON.stringify({ name: 'Bob', code: '808080' }) }));
  expect((await b.waitForMessage({ subject: 'Code for Bob' })).otp()).toBe('808080');
});

test('an inbox failing with 5.1.1 is v1\'s MessageRejected, a missing Source InvalidParameterValue, both thrown by the SDK', async ({ env, inbox }) => {
  const ses = sesAt(env);
  await inbox.failDeliveries({ code: 550, enhancedStatus: '5.1.1', count: 1 });
  const rejected = await ses.send(new SendEmailCommand({ Source: 'a@acme.test', Destination: { ToAddresses: [inbox.address] }, Message: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } })).then(() => null, (e: unknown) => e as Error);
  expect(rejected?.name).toBe('MessageRejected');
  expect(rejected?.message).toContain(inbox.address);
  const invalid = await ses.send(new SendEmailCommand({ Destination: { ToAddresses: [inbox.address] }, Message: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } } as never)).then(() => null, (e: unknown) => e as Error);
  expect(invalid?.name).toBe('InvalidParameterValue');
  await inbox.expectNoMessage({}, { within: 300 });
});
