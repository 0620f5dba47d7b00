/**
 * Resend's API through the real `resend` SDK, pointed at the service with
 * its `baseUrl` option (INBOXKIT_RESEND_BASE_URL): what the app sends lands
 * in each recipient's inbox, and what Resend refuses comes back as the SDK's
 * `{ error }`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Resend } from 'resend';
import { test, expect, registerTemplate, verificationHtml } from './fixtures.ts';

function resendAt(env: Record<string, string>): Resend {
  return new Resend('re_test_key', { baseUrl: env.INBOXKIT_RESEND_BASE_URL });
}

test('emails.send() stores the verification mail in the inbox, answers its id, and link() and otp() read it', async ({ env, inbox }) => {
  const resend = resendAt(env);
  const { data, error } = await resend.emails.send({
    from: 'Acme <onboarding@acme.test>',
    to: inbox.address,
    subject: 'Confirm your email',
    html: verificationHtml('https://app.acme.test/verify?token=abc123', '482915'),
    tags: [{ name: 'category', value: 'verification' }],
  });
  expect(error).toBeNull();
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
  expect(message.link('Confirm your email').href).toBe('https://app.acme.test/verify?token=abc123');
  expect(message.otp()).toBe('482915');
  expect(message.from?.address).toBe('onboarding@acme.test');
  expect(message.headers['x-inboxkit-via']).toBe('resend');
  expect(message.headers['x-inboxkit-via-id']).toBe(data?.id);
  expect(message.headers['x-inboxkit-tag']).toBe('category=verification');
});

test('a send to several recipients (to, cc and bcc) lands in each one\'s inbox, bcc absent from the headers', async ({ env, createInbox }) => {
  const [to, cc, bcc] = [await createInbox(), await createInbox(), await createInbox()];
  const { error } = await resendAt(env).emails.send({ from: 'team@acme.test', to: [to.address], cc: cc.address, bcc: [bcc.address], subject: 'Team invite', text: 'Join with code 551200' });
  expect(error).toBeNull();
  for (const inbox of [to, cc]) expect((await inbox.waitForMessage({ subject: 'Team invite' })).otp()).toBe('551200');
  const copy = await bcc.waitForMessage({ subject: 'Team invite' });
  expect(copy.otp()).toBe('551200');
  expect(copy.headers.bcc).toBeUndefined();
  expect(copy.cc.map((a) => a.address)).toEqual([cc.address]);
});

test('batch.send() stores each email of the batch and answers an id for each', async ({ env, createInbox }) => {
  const [first, second] = [await createInbox(), await createInbox()];
  const { data, error } = await resendAt(env).batch.send([
    { from: 'a@acme.test', to: first.address, subject: 'One', text: 'code 111111' },
    { from: 'a@acme.test', to: second.address, subject: 'Two', text: 'code 222222' },
  ]);
  expect(error).toBeNull();
  expect(data?.data).toHaveLength(2);
  expect((await first.waitForMessage({ subject: 'One' })).otp()).toBe('111111');
  expect((await second.waitForMessage({ subject: 'Two' })).otp()).toBe('222222');
});

test('an attachment arrives with its name and bytes, and scheduled_at is recorded while the mail is held for no one', async ({ env, inbox }) => {
  const { error } = await resendAt(env).emails.send({
    from: 'billing@acme.test',
    to: inbox.address,
    subject: 'Your invoice',
    text: 'Attached.',
    attachments: [{ filename: 'invoice.txt', content: Buffer.from('total: 42 EUR') }],
    scheduledAt: '2030-01-01T09:00:00.000Z',
  });
  expect(error).toBeNull();
  const message = await inbox.waitForMessage({ subject: 'Your invoice' });
  expect(message.attachments.map((a) => a.filename)).toEqual(['invoice.txt']);
  expect(message.headers['x-inboxkit-scheduled-at']).toBe('2030-01-01T09:00:00.000Z');
});

test('the same idempotency key answers the first id and sends once; another body under it is Resend\'s 409', async ({ env, inbox }) => {
  const resend = resendAt(env);
  const email = { from: 'a@acme.test', to: inbox.address, subject: 'Once', text: 'code 303030' };
  const first = await resend.emails.send(email, { idempotencyKey: 'signup-42' });
  const again = await resend.emails.send(email, { idempotencyKey: 'signup-42' });
  expect(again.data?.id).toBe(first.data?.id);
  const other = await resend.emails.send({ ...email, subject: 'Twice' }, { idempotencyKey: 'signup-42' });
  expect(other.error).toMatchObject({ name: 'invalid_idempotent_request', statusCode: 409 });
  await inbox.waitForMessage({ subject: 'Once' });
  await inbox.expectNoMessage({ subject: 'Twice' }, { within: 300 });
  expect(await inbox.messages()).toHaveLength(1);
});

test('a template send without a registered template is stored with its id and variables visible', async ({ env, inbox }) => {
  const { error } = await resendAt(env).emails.send({ from: 'a@acme.test', to: inbox.address, subject: 'Welcome', template: { id: 'welcome-v2', variables: { name: 'Ada', code: '640211' } } } as never);
  expect(error).toBeNull();
  const message = await inbox.waitForMessage({ subject: 'Welcome' });
  expect(message.headers['x-inboxkit-template']).toBe('welcome-v2');
  expect(JSON.parse(message.headers['x-inboxkit-template-data'] ?? 'null')).toEqual({ name: 'Ada', code: '640211' });
  expect(message.text).toContain('welcome-v2');
  expect(message.otp()).toBe('640211');
});

test('a template registered with the service is rendered with the send\'s variables, so link() and otp() read it', async ({ env, local, inbox }) => {
  await registerTemplate(local.url, 'resend', 'verify-v1', { subject: 'Your code, {{{NAME}}}', html: '<a href="{{{LINK}}}">Verify</a> Code {{{CODE}}}' });
  const { error } = await resendAt(env).emails.send({ from: 'a@acme.test', to: inbox.address, template: { id: 'verify-v1', variables: { NAME: 'Ada', LINK: 'https://app.acme.test/r?k=2', CODE: '880088' } } } as never);
  expect(error).toBeNull();
  const message = await inbox.waitForMessage({ subject: 'Your code, Ada' });
  expect(message.link('Verify').href).toBe('https://app.acme.test/r?k=2');
  expect(message.otp()).toBe('880088');
});

test('an inbox failing deliveries with 5.1.1 is Resend\'s 422 validation_error through the SDK, and nothing is stored', async ({ env, inbox }) => {
  await inbox.failDeliveries({ code: 550, enhancedStatus: '5.1.1' });
  const { data, error } = await resendAt(env).emails.send({ from: 'a@acme.test', to: inbox.address, subject: 'Refused', text: 'x' });
  expect(data).toBeNull();
  expect(error).toMatchObject({ name: 'validation_error', statusCode: 422, message: expect.stringContaining(inbox.address) });
  await inbox.clearDeliveryFaults();
  await inbox.expectNoMessage({ subject: 'Refused' }, { within: 300 });
});

test('an undeliverable inbox (550 5.7.1 suppressed, or any other 5xx) is accepted as Resend accepts it, and nothing is stored', async ({ env, inbox }) => {
  await inbox.failDeliveries({ code: 550 });
  const { data, error } = await resendAt(env).emails.send({ from: 'a@acme.test', to: inbox.address, subject: 'Bounced', text: 'x' });
  expect(error).toBeNull();
  expect(data?.id).toMatch(/^[0-9a-f-]{36}$/);
  await inbox.expectNoMessage({ subject: 'Bounced' }, { within: 300 });
});

test('bad input is Resend\'s own error shape: a missing from, a malformed to, a recipient with no inbox, an unserved path', async ({ env, local, inbox }) => {
  const resend = resendAt(env);
  expect((await resend.emails.send({ to: inbox.address, subject: 's', text: 't' } as never)).error).toMatchObject({ name: 'missing_required_field', message: 'Missing `from` field.' });
  expect((await resend.emails.send({ from: 'a@acme.test', to: 'not an address', subject: 's', text: 't' })).error).toMatchObject({ name: 'validation_error', message: expect.stringContaining('`to`') });
  expect((await resend.emails.send({ from: 'a@acme.test', to: 'nobody@nowhere.test', subject: 's', text: 't' })).error).toMatchObject({ name: 'validation_error', message: expect.stringContaining('POST /api/v1/inboxes') });
  expect((await resend.domains.list()).error).toMatchObject({ name: 'not_found', message: expect.stringContaining('GET /domains') });
  const raw = await fetch(`${local.url}/email/resend/emails`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
  expect(raw.status).toBe(422);
  await inbox.expectNoMessage({}, { within: 300 });
});

test('webhooks.create() registers a loopback endpoint whose events arrive Svix-signed, verified by the SDK\'s webhooks.verify()', async ({ env, inbox, createInbox }) => {
  const events: Array<{ type: string; to: string[]; emailId: string }> = [];
  const resend = resendAt(env);
  let secret = '';
  const app = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const header = (name: string) => String(req.headers[name] ?? '');
      const event = resend.webhooks.verify({ payload: body, headers: { id: header('svix-id'), timestamp: header('svix-timestamp'), signature: header('svix-signature') }, webhookSecret: secret }) as unknown as { type: string; data: { to: string[]; email_id: string } };
      events.push({ type: event.type, to: event.data.to, emailId: event.data.email_id });
      res.end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  try {
    const endpoint = `http://127.0.0.1:${(app.address() as AddressInfo).port}/resend`;
    const created = await resend.webhooks.create({ endpoint, events: ['email.delivered', 'email.bounced'] });
    secret = created.data?.signing_secret ?? '';
    expect(secret).toMatch(/^whsec_/);
    const bouncing = await createInbox();
    await bouncing.failDeliveries({ code: 550, enhancedStatus: '5.2.1' });
    const { data } = await resend.emails.send({ from: 'a@acme.test', to: [inbox.address, bouncing.address], subject: 'Hooked', text: 'x' });
    await expect.poll(() => events.length).toBe(2);
    expect(events).toEqual(expect.arrayContaining([
      { type: 'email.delivered', to: [inbox.address], emailId: data?.id },
      { type: 'email.bounced', to: [bouncing.address], emailId: data?.id },
    ]));
    expect((await resend.webhooks.create({ endpoint: 'http://example.com/hook', events: ['email.sent'] })).error).toMatchObject({ name: 'validation_error', message: expect.stringContaining('not a loopback host') });
  } finally {
    await new Promise<void>((resolve) => app.close(() => resolve()));
  }
});

test('a greylisting inbox (one 451) is delivered, as the provider retries; a lasting 4xx is accepted and never delivered', async ({ env, inbox }) => {
  const resend = resendAt(env);
  await inbox.failDeliveries({ kind: 'greylist' });
  expect((await resend.emails.send({ from: 'a@acme.test', to: inbox.address, subject: 'Greylisted', text: 'code 515151' })).error).toBeNull();
  expect((await inbox.waitForMessage({ subject: 'Greylisted' })).otp()).toBe('515151');
  await inbox.failDeliveries({ code: 452 });
  expect((await resend.emails.send({ from: 'a@acme.test', to: inbox.address, subject: 'Deferred', text: 'x' })).error).toBeNull();
  await inbox.expectNoMessage({ subject: 'Deferred' }, { within: 300 });
});
