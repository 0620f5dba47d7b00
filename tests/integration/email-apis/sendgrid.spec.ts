/**
 * SendGrid's v3 Mail Send through the real `@sendgrid/mail`, given a
 * `@sendgrid/client` whose base URL is INBOXKIT_SENDGRID_BASE_URL: each
 * personalization lands in its recipients' inboxes, a dynamic template
 * registered with the service is rendered with Handlebars, and what SendGrid
 * refuses is the SDK's `ResponseError` with SendGrid's `{ errors }`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sendgridClient from '@sendgrid/client';
import { EventWebhook, EventWebhookHeader } from '@sendgrid/eventwebhook';
import sendgridMail from '@sendgrid/mail';
import { test, expect, registerTemplate, verificationHtml } from './fixtures.ts';

// The packages export their classes beside the default instances (their types declare only the instances).
const { MailService } = sendgridMail as unknown as { MailService: new () => typeof sendgridMail };
const { Client } = sendgridClient as unknown as { Client: new () => typeof sendgridClient };

/** An app's own mailer: a MailService given a Client pointed at the service. */
function sendGridAt(env: Record<string, string>): typeof sendgridMail {
  const client = new Client();
  client.setApiKey('SG.test-key');
  client.setDefaultRequest('baseUrl', env.INBOXKIT_SENDGRID_BASE_URL ?? '');
  const mail = new MailService();
  mail.setClient(client);
  return mail;
}

interface SendGridFailure {
  code: number;
  response: { body: { errors: Array<{ message: string; field: string | null }> } };
}

async function failure(promise: Promise<unknown>): Promise<SendGridFailure> {
  return promise.then(
    () => {
      throw new Error('the send was accepted');
    },
    (error: unknown) => error as SendGridFailure,
  );
}

test('send() stores the verification mail, answers 202 with the X-Message-Id it is stored under, and link() and otp() read it', async ({ env, inbox }) => {
  const [response] = await sendGridAt(env).send({
    to: inbox.address,
    from: { email: 'no-reply@acme.test', name: 'Acme' },
    subject: 'Confirm your email',
    html: verificationHtml('https://app.acme.test/verify?token=sg1', '730144'),
    categories: ['verification'],
  });
  expect(response.statusCode).toBe(202);
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
  expect(message.link('Confirm your email').href).toBe('https://app.acme.test/verify?token=sg1');
  expect(message.otp()).toBe('730144');
  expect(message.from).toMatchObject({ address: 'no-reply@acme.test', name: 'Acme' });
  expect(message.headers['x-inboxkit-via']).toBe('sendgrid');
  expect(message.headers['x-inboxkit-via-id']).toBe(response.headers['x-message-id']);
  expect(message.headers['x-inboxkit-tag']).toBe('verification');
});

test('each personalization is its own email: its recipients (to, cc, bcc), its subject and its substitutions', async ({ env, createInbox }) => {
  const [ada, bob, boss] = [await createInbox(), await createInbox(), await createInbox()];
  await sendGridAt(env).send({
    from: 'team@acme.test',
    subject: 'Hello',
    text: 'Hi {{name}}, your code is {{code}}', // the SDK wraps each substitution key in {{ }}
    personalizations: [
      { to: [{ email: ada.address }], bcc: [{ email: boss.address }], subject: 'Hello Ada', substitutions: { name: 'Ada', code: '100001' } },
      { to: [{ email: bob.address }], substitutions: { name: 'Bob', code: '200002' } },
    ],
  });
  const forAda = await ada.waitForMessage({ subject: 'Hello Ada' });
  expect(forAda.text).toContain('Hi Ada');
  expect(forAda.otp()).toBe('100001');
  expect((await boss.waitForMessage({ subject: 'Hello Ada' })).otp()).toBe('100001');
  const forBob = await bob.waitForMessage({ subject: 'Hello' });
  expect(forBob.otp()).toBe('200002');
});

test('a dynamic template registered with the service is rendered with the dynamic_template_data, so link() and otp() read it', async ({ env, local, inbox }) => {
  await registerTemplate(local.url, 'sendgrid', 'd-verify1', { subject: 'Welcome, {{name}}', html: '<p>Hi {{name}}</p><p><a href="{{link}}">Verify</a></p><p>Code: {{code}}</p>' });
  await sendGridAt(env).send({ to: inbox.address, from: 'a@acme.test', templateId: 'd-verify1', dynamicTemplateData: { name: 'Ada', link: 'https://app.acme.test/v?t=42', code: '918273' } });
  const message = await inbox.waitForMessage({ subject: 'Welcome, Ada' });
  expect(message.link('Verify').href).toBe('https://app.acme.test/v?t=42');
  expect(message.otp()).toBe('918273');
  expect(message.headers['x-inboxkit-template']).toBe('d-verify1');
});

test('a template id the service does not have is stored with its id and data visible', async ({ env, inbox }) => {
  await sendGridAt(env).send({ to: inbox.address, from: 'a@acme.test', templateId: 'd-unknown', dynamicTemplateData: { code: '556677' } });
  const message = await inbox.waitForMessage();
  expect(message.headers['x-inboxkit-template']).toBe('d-unknown');
  expect(message.otp()).toBe('556677');
});

test('an attachment arrives with its name and type', async ({ env, inbox }) => {
  await sendGridAt(env).send({ to: inbox.address, from: 'a@acme.test', subject: 'Invoice', text: 'Attached', attachments: [{ content: Buffer.from('%PDF-1.4 test').toString('base64'), filename: 'invoice.pdf', type: 'application/pdf' }] });
  const message = await inbox.waitForMessage({ subject: 'Invoice' });
  expect(message.attachments.map((a) => [a.filename, a.contentType])).toEqual([['invoice.pdf', 'application/pdf']]);
});

test('sandbox mode answers 200 and stores nothing, as SendGrid does', async ({ env, inbox }) => {
  const [response] = await sendGridAt(env).send({ to: inbox.address, from: 'a@acme.test', subject: 'Sandboxed', text: 'x', mailSettings: { sandboxMode: { enable: true } } });
  expect(response.statusCode).toBe(200);
  await inbox.expectNoMessage({ subject: 'Sandboxed' }, { within: 300 });
});

test('an inbox failing deliveries with 5.1.1 is SendGrid\'s 400, thrown by the SDK, and no copy is stored for anyone', async ({ env, inbox, createInbox }) => {
  const other = await createInbox();
  await inbox.failDeliveries({ code: 550, enhancedStatus: '5.1.1' });
  const error = await failure(sendGridAt(env).send({ to: [inbox.address, other.address], from: 'a@acme.test', subject: 'Refused', text: 'x' }));
  expect(error.code).toBe(400);
  expect(error.response.body.errors[0]).toMatchObject({ field: 'personalizations.0.to', message: expect.stringContaining(inbox.address) });
  await other.expectNoMessage({ subject: 'Refused' }, { within: 300 });
});

test('bad input is SendGrid\'s own { errors } naming the field: no from, no content, a bad address, an unserved path', async ({ env, local, inbox }) => {
  const mail = sendGridAt(env);
  expect((await failure(mail.send({ to: inbox.address, subject: 's', text: 't' } as never))).response.body.errors[0]?.field).toBe('from');
  expect((await failure(mail.send({ to: inbox.address, from: 'a@acme.test', subject: 's' } as never))).response.body.errors[0]?.field).toBe('content');
  expect((await failure(mail.send({ to: 'not-an-address', from: 'a@acme.test', subject: 's', text: 't' }))).response.body.errors[0]).toMatchObject({ field: 'personalizations.0.to.0.email', message: 'Does not contain a valid address.' });
  const unserved = await fetch(`${local.url}/email/sendgrid/v3/templates`);
  expect(unserved.status).toBe(404);
  expect(((await unserved.json()) as { errors: Array<{ message: string }> }).errors[0]?.message).toContain('POST /v3/mail/send');
  await inbox.expectNoMessage({}, { within: 300 });
});

test('the Event Webhook set through the settings API receives each recipient\'s events, ECDSA-signed so that @sendgrid/eventwebhook verifies them', async ({ env, inbox, createInbox }) => {
  const batches: Array<{ events: Array<{ event: string; email: string; sg_message_id: string }>; valid: boolean }> = [];
  let publicKey = '';
  const app = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const verifier = new EventWebhook();
      const valid = verifier.verifySignature(verifier.convertPublicKeyToECDSA(publicKey), body, String(req.headers[EventWebhookHeader.SIGNATURE().toLowerCase()]), String(req.headers[EventWebhookHeader.TIMESTAMP().toLowerCase()]));
      batches.push({ events: JSON.parse(body) as Array<{ event: string; email: string; sg_message_id: string }>, valid });
      res.end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  try {
    const client = new Client();
    client.setApiKey('SG.test-key');
    client.setDefaultRequest('baseUrl', env.INBOXKIT_SENDGRID_BASE_URL ?? '');
    await client.request({ method: 'PATCH', url: '/v3/user/webhooks/event/settings', body: { enabled: true, url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/events`, delivered: true, bounce: true } });
    const [signed] = await client.request({ method: 'PATCH', url: '/v3/user/webhooks/event/settings/signed', body: { enabled: true } });
    publicKey = (signed.body as { public_key: string }).public_key;
    const bouncing = await createInbox();
    await bouncing.failDeliveries({ code: 550, enhancedStatus: '5.2.2' });
    const mail = new MailService();
    mail.setClient(client);
    const [response] = await mail.send({ to: [inbox.address, bouncing.address], from: 'a@acme.test', subject: 'Evented', text: 'x' });
    await expect.poll(() => batches.length).toBe(1);
    expect(batches[0]?.valid).toBe(true);
    const seen = batches[0]?.events.map((e) => `${e.event} ${e.email}`);
    expect(seen).toEqual(expect.arrayContaining([`processed ${inbox.address}`, `delivered ${inbox.address}`, `processed ${bouncing.address}`, `bounce ${bouncing.address}`]));
    expect(batches[0]?.events[0]?.sg_message_id.startsWith(String(response.headers['x-message-id']))).toBe(true);
  } finally {
    await new Promise<void>((resolve) => app.close(() => resolve()));
  }
});
