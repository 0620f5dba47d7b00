/**
 * Mailgun's Messages API through the real `mailgun.js`, pointed at the
 * service with its `url` option (INBOXKIT_MAILGUN_URL): form sends, MIME
 * sends and templates land in each recipient's inbox, and what Mailgun
 * refuses is the SDK's error with Mailgun's status and message.
 */
import FormData from 'form-data';
import Mailgun from 'mailgun.js';
import MailComposer from 'nodemailer/lib/mail-composer';
import { test, expect, registerTemplate, verificationHtml } from './fixtures.ts';

const DOMAIN = 'mg.acme.test';

function mailgunAt(env: Record<string, string>): ReturnType<Mailgun['client']> {
  return new Mailgun(FormData).client({ username: 'api', key: 'key-test', url: env.INBOXKIT_MAILGUN_URL ?? '' });
}

async function failure(promise: Promise<unknown>): Promise<{ status: number; details: string; message: string }> {
  return promise.then(
    () => {
      throw new Error('the send was accepted');
    },
    (error: unknown) => error as { status: number; details: string; message: string },
  );
}

test('messages.create() stores the verification mail with its h: headers and v: variables, and link() and otp() read it', async ({ env, inbox }) => {
  const sent = await mailgunAt(env).messages.create(DOMAIN, {
    from: 'Acme <no-reply@mg.acme.test>',
    to: [inbox.address],
    subject: 'Confirm your email',
    html: verificationHtml('https://app.acme.test/verify?mg=1', '192837'),
    'h:X-Acme-Flow': 'signup',
    'v:user-id': '42',
    'o:tag': ['verification'],
  });
  expect(sent).toMatchObject({ status: 200, message: 'Queued. Thank you.' });
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
  expect(message.link('Confirm your email').href).toBe('https://app.acme.test/verify?mg=1');
  expect(message.otp()).toBe('192837');
  expect(message.headers['x-acme-flow']).toBe('signup');
  expect(JSON.parse(message.headers['x-mailgun-variables'] ?? '{}')).toEqual({ 'user-id': '42' });
  expect(message.headers['x-inboxkit-via']).toBe('mailgun');
  expect(message.headers['x-inboxkit-via-id']).toBe(sent.id);
});

test('recipient-variables make one email per recipient, each with its own values; an attachment arrives', async ({ env, createInbox }) => {
  const [ada, bob] = [await createInbox(), await createInbox()];
  await mailgunAt(env).messages.create(DOMAIN, {
    from: 'a@mg.acme.test',
    to: [ada.address, bob.address],
    subject: 'Hi %recipient.name%',
    text: 'Your code is %recipient.code%',
    'recipient-variables': JSON.stringify({ [ada.address]: { name: 'Ada', code: '123123' }, [bob.address]: { name: 'Bob', code: '456456' } }),
    attachment: [{ filename: 'terms.txt', data: Buffer.from('terms') }],
  });
  const forAda = await ada.waitForMessage({ subject: 'Hi Ada' });
  expect(forAda.otp()).toBe('123123');
  expect(forAda.to.map((a) => a.address)).toEqual([ada.address]);
  expect(forAda.attachments.map((a) => a.filename)).toEqual(['terms.txt']);
  expect((await bob.waitForMessage({ subject: 'Hi Bob' })).otp()).toBe('456456');
});

test('a template registered with the service is rendered with t:variables; a MIME send is stored as sent', async ({ env, local, inbox }) => {
  await registerTemplate(local.url, 'mailgun', 'verify', { subject: 'Verify, {{name}}', html: '<a href="{{link}}">Verify</a> {{code}}' });
  await mailgunAt(env).messages.create(DOMAIN, { from: 'a@mg.acme.test', to: inbox.address, template: 'verify', 't:variables': JSON.stringify({ name: 'Ada', link: 'https://app.acme.test/m?1', code: '564738' }) });
  const rendered = await inbox.waitForMessage({ subject: 'Verify, Ada' });
  expect(rendered.link('Verify').href).toBe('https://app.acme.test/m?1');
  expect(rendered.otp()).toBe('564738');
  const mime = await new MailComposer({ from: 'a@mg.acme.test', to: inbox.address, subject: 'MIME send', text: 'code 665544' }).compile().build();
  await mailgunAt(env).messages.create(DOMAIN, { to: inbox.address, message: mime });
  expect((await inbox.waitForMessage({ subject: 'MIME send' })).otp()).toBe('665544');
});

test('o:testmode is answered and nothing is delivered; an inbox failing with 5.1.1 is Mailgun\'s 400, thrown by the SDK', async ({ env, inbox }) => {
  const mailgun = mailgunAt(env);
  await mailgun.messages.create(DOMAIN, { from: 'a@mg.acme.test', to: inbox.address, subject: 'Test mode', text: 'x', 'o:testmode': 'yes' });
  await inbox.failDeliveries({ code: 550, enhancedStatus: '5.1.1' });
  const error = await failure(mailgun.messages.create(DOMAIN, { from: 'a@mg.acme.test', to: inbox.address, subject: 'Refused', text: 'x' }));
  expect(error.status).toBe(400);
  expect(error.details).toContain(inbox.address);
  await inbox.clearDeliveryFaults();
  await inbox.expectNoMessage({}, { within: 300 });
});

test('bad input is Mailgun\'s own { message }: no from, no text or html, an unserved path', async ({ env, local, inbox }) => {
  const mailgun = mailgunAt(env);
  expect(await failure(mailgun.messages.create(DOMAIN, { to: inbox.address, subject: 's', text: 't' } as never))).toMatchObject({ status: 400, details: 'from parameter is missing' });
  expect(await failure(mailgun.messages.create(DOMAIN, { from: 'a@mg.acme.test', to: inbox.address, subject: 's' } as never))).toMatchObject({ status: 400, details: "Need at least one of 'text', 'html' or 'template' parameters specified" });
  const unserved = await fetch(`${local.url}/email/mailgun/v3/domains`);
  expect(unserved.status).toBe(404);
  expect(((await unserved.json()) as { message: string }).message).toContain('POST /v3/{domain}/messages');
  await inbox.expectNoMessage({}, { within: 300 });
});
