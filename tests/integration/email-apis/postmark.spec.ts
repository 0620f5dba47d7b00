/**
 * Postmark's Email API through the real `postmark` SDK, pointed at the
 * service with `requestHost` (INBOXKIT_POSTMARK_REQUEST_HOST) and
 * `useHttps: false`: what the app sends lands in each recipient's inbox, a
 * template registered with the service is rendered, and what Postmark
 * refuses is the SDK's error with Postmark's `ErrorCode`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServerClient } from 'postmark';
import { test, expect, registerTemplate, verificationHtml } from './fixtures.ts';

function postmarkAt(env: Record<string, string>, token = 'server-token'): ServerClient {
  return new ServerClient(token, { requestHost: env.INBOXKIT_POSTMARK_REQUEST_HOST, useHttps: false });
}

async function failure(promise: Promise<unknown>): Promise<{ code: number; statusCode: number; message: string; name: string }> {
  return promise.then(
    () => {
      throw new Error('the send was accepted');
    },
    (error: unknown) => error as { code: number; statusCode: number; message: string; name: string },
  );
}

test('sendEmail() stores the verification mail, answers its MessageID, and link() and otp() read it', async ({ env, inbox }) => {
  const sent = await postmarkAt(env).sendEmail({ From: 'Acme <hello@acme.test>', To: inbox.address, Subject: 'Confirm your email', HtmlBody: verificationHtml('https://app.acme.test/verify?pm=1', '310455'), Tag: 'verification', MessageStream: 'outbound' });
  expect(sent).toMatchObject({ ErrorCode: 0, Message: 'OK', To: inbox.address });
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
  expect(message.link('Confirm your email').href).toBe('https://app.acme.test/verify?pm=1');
  expect(message.otp()).toBe('310455');
  expect(message.headers['x-inboxkit-via']).toBe('postmark');
  expect(message.headers['x-inboxkit-via-id']).toBe(sent.MessageID);
});

test('a send to To, Cc and Bcc lands in each inbox; sendEmailBatch() answers each email on its own', async ({ env, createInbox }) => {
  const [to, cc, bcc] = [await createInbox(), await createInbox(), await createInbox()];
  await postmarkAt(env).sendEmail({ From: 'a@acme.test', To: to.address, Cc: cc.address, Bcc: bcc.address, Subject: 'Invite', TextBody: 'code 404040' });
  for (const inbox of [to, cc, bcc]) expect((await inbox.waitForMessage({ subject: 'Invite' })).otp()).toBe('404040');
  const results = await postmarkAt(env).sendEmailBatch([
    { From: 'a@acme.test', To: to.address, Subject: 'B1', TextBody: 'code 111000' },
    { From: 'a@acme.test', To: '', Subject: 'B2', TextBody: 'x' },
  ]);
  expect(results.map((r) => r.ErrorCode)).toEqual([0, 300]);
  expect((await to.waitForMessage({ subject: 'B1' })).otp()).toBe('111000');
});

test('sendEmailWithTemplate() renders a template registered under its alias with the TemplateModel', async ({ env, local, inbox }) => {
  await registerTemplate(local.url, 'postmark', 'welcome', { subject: 'Welcome {{name}}', html: '<p><a href="{{action_url}}">Verify</a> Your code: {{code}}</p>' });
  await postmarkAt(env).sendEmailWithTemplate({ From: 'a@acme.test', To: inbox.address, TemplateAlias: 'welcome', TemplateModel: { name: 'Ada', action_url: 'https://app.acme.test/a?b=1', code: '727272' } });
  const message = await inbox.waitForMessage({ subject: 'Welcome Ada' });
  expect(message.link('Verify').href).toBe('https://app.acme.test/a?b=1');
  expect(message.otp()).toBe('727272');
  expect(message.headers['x-inboxkit-template']).toBe('welcome');
});

test('the POSTMARK_API_TEST token is answered as Postmark answers it, and nothing is delivered', async ({ env, inbox }) => {
  const sent = await postmarkAt(env, 'POSTMARK_API_TEST').sendEmail({ From: 'a@acme.test', To: inbox.address, Subject: 'Test token', TextBody: 'x' });
  expect(sent).toMatchObject({ ErrorCode: 0, Message: 'Test job accepted' });
  await inbox.expectNoMessage({ subject: 'Test token' }, { within: 300 });
});

test('an inbox failing deliveries (a suppressed recipient) is Postmark\'s 406 inactive recipient, thrown by the SDK', async ({ env, inbox }) => {
  await inbox.failDeliveries({ code: 550 });
  const error = await failure(postmarkAt(env).sendEmail({ From: 'a@acme.test', To: inbox.address, Subject: 'Inactive', TextBody: 'x' }));
  expect(error).toMatchObject({ code: 406, statusCode: 422 });
  expect(error.message).toContain(inbox.address);
  await inbox.clearDeliveryFaults();
  await inbox.expectNoMessage({ subject: 'Inactive' }, { within: 300 });
});

test('bad input is Postmark\'s own error: a bad From, no body, no token, an unserved call', async ({ env, local, inbox }) => {
  const postmark = postmarkAt(env);
  expect(await failure(postmark.sendEmail({ From: 'nope', To: inbox.address, Subject: 's', TextBody: 't' }))).toMatchObject({ code: 300, message: "Invalid 'From' address: 'nope'." });
  expect(await failure(postmark.sendEmail({ From: 'a@acme.test', To: inbox.address, Subject: 's' }))).toMatchObject({ code: 300, message: 'Provide either email TextBody or HtmlBody or both.' });
  const noToken = await fetch(`http://${env.INBOXKIT_POSTMARK_REQUEST_HOST}/email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(noToken.status).toBe(401);
  expect(await failure(postmark.getBounces())).toMatchObject({ statusCode: 404, message: expect.stringContaining('GET /bounces') });
  void local;
  await inbox.expectNoMessage({}, { within: 300 });
});

test('createWebhook() registers a loopback URL that receives each recipient\'s Delivery or Bounce event, with the webhook\'s Basic credentials', async ({ env, inbox, createInbox }) => {
  const posts: Array<{ event: { RecordType: string; MessageID: string; Recipient?: string; Email?: string }; authorization: string }> = [];
  const app = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      posts.push({ event: JSON.parse(body) as { RecordType: string; MessageID: string }, authorization: String(req.headers.authorization) });
      res.end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  try {
    const postmark = postmarkAt(env);
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/postmark`;
    const hook = await postmark.createWebhook({ Url: url, MessageStream: 'outbound', HttpAuth: { Username: 'hook', Password: 's3cret' }, Triggers: { Delivery: { Enabled: true }, Bounce: { Enabled: true } } });
    expect(hook.Url).toBe(url);
    const bouncing = await createInbox();
    await bouncing.failDeliveries({ code: 550, enhancedStatus: '5.2.1' });
    const sent = await postmark.sendEmail({ From: 'a@acme.test', To: `${inbox.address}, ${bouncing.address}`, Subject: 'Hooked', TextBody: 'x' });
    await expect.poll(() => posts.length).toBe(2);
    expect(posts.every((p) => p.authorization === `Basic ${Buffer.from('hook:s3cret').toString('base64')}`)).toBe(true);
    expect(posts.map((p) => p.event)).toEqual(expect.arrayContaining([
      expect.objectContaining({ RecordType: 'Delivery', MessageID: sent.MessageID, Recipient: inbox.address }),
      expect.objectContaining({ RecordType: 'Bounce', MessageID: sent.MessageID, Email: bouncing.address }),
    ]));
  } finally {
    await new Promise<void>((resolve) => app.close(() => resolve()));
  }
});
