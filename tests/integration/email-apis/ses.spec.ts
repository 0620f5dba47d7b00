/**
 * Amazon SES v2 through the real `@aws-sdk/client-sesv2`, pointed at the
 * service with its `endpoint` option (INBOXKIT_SES_ENDPOINT): Simple, Raw
 * and Template content land in each recipient's inbox, and what SES refuses
 * is the SDK's named exception.
 */
import { CreateEmailTemplateCommand, SendBulkEmailCommand, SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { createTransport } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { test, expect, verificationHtml } from './fixtures.ts';

function sesAt(env: Record<string, string>): SESv2Client {
  return new SESv2Client({ endpoint: env.INBOXKIT_SES_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'AKIAINBOXKITTEST', secretAccessKey: 'secret' } });
}

async function failure(promise: Promise<unknown>): Promise<{ name: string; message: string; $metadata: { httpStatusCode?: number } }> {
  return promise.then(
    () => {
      throw new Error('the send was accepted');
    },
    (error: unknown) => error as { name: string; message: string; $metadata: { httpStatusCode?: number } },
  );
}

test('SendEmail with Simple content stores the verification mail under the MessageId it answers, and link() and otp() read it', async ({ env, inbox }) => {
  const sent = await sesAt(env).send(
    new SendEmailCommand({
      FromEmailAddress: 'Acme <no-reply@acme.test>',
      Destination: { ToAddresses: [inbox.address] },
      Content: { Simple: { Subject: { Data: 'Confirm your email' }, Body: { Html: { Data: verificationHtml('https://app.acme.test/verify?ses=1', '262626') } } } },
      EmailTags: [{ Name: 'flow', Value: 'signup' }],
    }),
  );
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
  expect(message.link('Confirm your email').href).toBe('https://app.acme.test/verify?ses=1');
  expect(message.otp()).toBe('262626');
  expect(message.headers['x-inboxkit-via']).toBe('ses');
  expect(message.headers['x-inboxkit-via-id']).toBe(sent.MessageId);
  expect(message.headers['x-inboxkit-tag']).toBe('flow=signup');
});

test('SendEmail with Raw content stores the MIME as sent, to the recipients its headers name', async ({ env, createInbox }) => {
  const [to, cc] = [await createInbox(), await createInbox()];
  const raw = await new MailComposer({ from: 'a@acme.test', to: to.address, cc: cc.address, subject: 'Raw send', text: 'code 818181', attachments: [{ filename: 'a.txt', content: 'hello' }] }).compile().build();
  await sesAt(env).send(new SendEmailCommand({ Content: { Raw: { Data: raw } } }));
  for (const inbox of [to, cc]) {
    const message = await inbox.waitForMessage({ subject: 'Raw send' });
    expect(message.otp()).toBe('818181');
    expect(message.attachments.map((a) => a.filename)).toEqual(['a.txt']);
  }
});

test('nodemailer\'s SES transport on the SESv2 client delivers the mail it composes, link() and otp() reading it', async ({ env, inbox }) => {
  const transport = createTransport({ SES: { sesClient: sesAt(env), SendEmailCommand } });
  const info = await transport.sendMail({ from: 'Acme <a@acme.test>', to: inbox.address, subject: 'Via nodemailer', html: verificationHtml('https://app.acme.test/nm?ok=1', '975310') });
  const message = await inbox.waitForMessage({ subject: 'Via nodemailer' });
  expect(message.link('Confirm your email').href).toBe('https://app.acme.test/nm?ok=1');
  expect(message.otp()).toBe('975310');
  expect(message.headers['x-inboxkit-via-id']).toBe(info.response);
});

test('a template made with CreateEmailTemplate renders a Template send and each SendBulkEmail entry with its own data', async ({ env, createInbox }) => {
  const ses = sesAt(env);
  const name = `verify-${Date.now()}`;
  await ses.send(new CreateEmailTemplateCommand({ TemplateName: name, TemplateContent: { Subject: 'Hi {{name}}', Html: '<a href="{{link}}">Verify</a> code {{code}}' } }));
  const [ada, bob] = [await createInbox(), await createInbox()];
  await ses.send(new SendEmailCommand({ FromEmailAddress: 'a@acme.test', Destination: { ToAddresses: [ada.address] }, Content: { Template: { TemplateName: name, TemplateData: JSON.stringify({ name: 'Ada', link: 'https://app.acme.test/t?x=1', code: '135790' }) } } }));
  const single = await ada.waitForMessage({ subject: 'Hi Ada' });
  expect(single.link('Verify').href).toBe('https://app.acme.test/t?x=1');
  expect(single.otp()).toBe('135790');
  const bulk = await ses.send(
    new SendBulkEmailCommand({
      FromEmailAddress: 'a@acme.test',
      DefaultContent: { Template: { TemplateName: name, TemplateData: JSON.stringify({ name: 'friend', link: 'https://app.acme.test/t', code: '000000' }) } },
      BulkEmailEntries: [
        { Destination: { ToAddresses: [bob.address] }, ReplacementEmailContent: { ReplacementTemplate: { ReplacementTemplateData: JSON.stringify({ name: 'Bob', code: '246802' }) } } },
        { Destination: { ToAddresses: ['nobody@nowhere.test'] } },
      ],
    }),
  );
  expect(bulk.BulkEmailEntryResults?.map((r) => r.Status)).toEqual(['SUCCESS', 'MESSAGE_REJECTED']);
  expect((await bob.waitForMessage({ subject: 'Hi Bob' })).otp()).toBe('246802');
});

test('an inbox failing deliveries with 5.1.1 is SES\'s MessageRejected, thrown by the SDK; another fault is accepted and not delivered', async ({ env, inbox }) => {
  const send = (subject: string) => sesAt(env).send(new SendEmailCommand({ FromEmailAddress: 'a@acme.test', Destination: { ToAddresses: [inbox.address] }, Content: { Simple: { Subject: { Data: subject }, Body: { Text: { Data: 'x' } } } } }));
  await inbox.failDeliveries({ code: 550, enhancedStatus: '5.1.1', count: 1 });
  const error = await failure(send('Rejected'));
  expect(error.name).toBe('MessageRejected');
  expect(error.message).toContain(inbox.address);
  await inbox.failDeliveries({ code: 550, count: 1 });
  expect((await send('Bounced')).MessageId).toBeTruthy();
  await inbox.expectNoMessage({}, { within: 300 });
});

test('bad input is SES\'s own exception: no sender, an illegal address, an unserved operation', async ({ env, local, inbox }) => {
  const ses = sesAt(env);
  expect(await failure(ses.send(new SendEmailCommand({ Destination: { ToAddresses: [inbox.address] }, Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } } })))).toMatchObject({ name: 'BadRequestException', message: expect.stringContaining('FromEmailAddress') });
  expect(await failure(ses.send(new SendEmailCommand({ FromEmailAddress: 'a@acme.test', Destination: { ToAddresses: ['not an address'] }, Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } } })))).toMatchObject({ name: 'BadRequestException', message: expect.stringContaining('Illegal address') });
  const unserved = await fetch(`${local.url}/email/ses/v2/email/identities`);
  expect(unserved.status).toBe(404);
  expect(unserved.headers.get('x-amzn-errortype')).toBe('NotFoundException');
  await inbox.expectNoMessage({}, { within: 300 });
});
