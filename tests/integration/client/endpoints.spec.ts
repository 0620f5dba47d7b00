import { test, expect, KEY } from './fixtures.ts';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  createPkceVerifier,
  pkceChallenge,
  InboxHandle,
} from '../../../src/client/index.ts';

test('the domains list has the default domain', async ({ guest }) => {
  const domains = await guest.domains.list();
  expect(domains).toEqual([expect.objectContaining({ domain: 'inboxkit.example.com', isDefault: true })]);
});

test('a guest creates an inbox and reads its mail through the handle alone: list, get, raw, attachments, delete', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create({ label: 'guest flow' });
  expect(inbox).toBeInstanceOf(InboxHandle);
  expect(inbox.token).toEqual(expect.any(String));
  expect(inbox.address).toBe(`${inbox.localPart}@inboxkit.example.com`);
  expect(inbox.label).toBe('guest flow');

  const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10, 0x0d, 0x0a]);
  await send({
    to: inbox.address,
    subject: 'Your code is 123456',
    text: 'Use 123456 to sign in.',
    html: '<p>Use <b>123456</b> to sign in.</p><script>alert(1)</script>',
    attachments: [{ filename: 'Résumé.pdf', content: pdf, contentType: 'application/pdf' }],
  });

  const page = await inbox.messages();
  expect(page.items).toHaveLength(1);
  expect(page.nextCursor).toBeNull();
  const summary = page.items[0]!;
  expect(summary).toMatchObject({ inboxId: inbox.id, seq: 1, subject: 'Your code is 123456', hasAttachments: true, from: { address: 'app@example.test', name: 'App' } });

  const message = await inbox.message(summary.id);
  expect(message.text).toContain('Use 123456 to sign in.');
  expect(message.html).toContain('<b>123456</b>');
  expect(message.html).not.toContain('<script');
  expect(message.headers.subject).toBe('Your code is 123456');
  const attachment = message.attachments[0]!;
  expect(attachment).toMatchObject({ filename: 'Résumé.pdf', contentType: 'application/pdf', size: pdf.length });

  const raw = await inbox.raw(summary.id);
  expect(raw.text).toContain('Subject: Your code is 123456');
  expect(raw.bytes.byteLength).toBe(summary.size);

  const download = await inbox.downloadAttachment(summary.id, attachment.id);
  expect(Buffer.from(download.bytes)).toEqual(pdf);
  expect(download).toMatchObject({ filename: 'Résumé.pdf', contentType: expect.stringContaining('application/pdf'), size: pdf.length });

  const streamed = await inbox.streamAttachment(summary.id, attachment.id);
  const chunks: Buffer[] = [];
  for await (const chunk of streamed.stream) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks)).toEqual(pdf);
  expect(streamed.size).toBe(pdf.length);

  await inbox.refresh();
  expect(inbox.messageCount).toBe(1);
  expect(await inbox.deleteMessage(summary.id)).toEqual({ id: summary.id, deleted: true });
  await expect(inbox.message(summary.id)).rejects.toBeInstanceOf(NotFoundError);

  expect(await inbox.update({ label: 'renamed' })).toBe(inbox);
  expect(inbox.label).toBe('renamed');
  expect(await inbox.delete()).toMatchObject({ id: inbox.id, deleted: true, messagesDeleted: 0 });
  // The inbox token died with its inbox: the server no longer knows the credential.
  await expect(inbox.refresh()).rejects.toBeInstanceOf(AuthenticationError);
});

test('a client with an inbox token sees exactly that inbox', async ({ guest, makeClient }) => {
  const mine = await guest.inboxes.create();
  const other = await guest.inboxes.create();
  const scoped = makeClient({ inboxToken: mine.token! });
  expect((await scoped.inboxes.get(mine.id)).id).toBe(mine.id);
  expect((await scoped.inboxes.list()).items.map((i) => i.id)).toEqual([mine.id]);
  expect((await scoped.me.get()).credential).toBe('inboxToken');
  const err = await scoped.inboxes.get(other.id).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(NotFoundError);
  expect((err as NotFoundError).code).toBe('inbox_not_found');
  await expect(scoped.messages.list(other.id)).rejects.toBeInstanceOf(NotFoundError);
});

test('a key holder creates, lists, gets, updates and deletes inboxes of their own', async ({ keyed, makeClient }) => {
  const domain = (await keyed.domains.list())[0]!;
  const created = await keyed.inboxes.create({ localPart: 'signup.test+1', domainId: domain.id, label: 'mine' });
  expect(created.address).toBe('signup.test+1@inboxkit.example.com');
  const listed = [];
  for await (const inbox of keyed.inboxes.list()) listed.push(inbox.id);
  expect(listed).toContain(created.id);
  expect((await keyed.inboxes.get(created.id)).label).toBe('mine');
  const updated = await keyed.inboxes.update(created.id, { label: null });
  expect(updated.label).toBeNull();
  expect(updated).toBeInstanceOf(InboxHandle);

  const stranger = makeClient({ apiKey: 'tm_client_tests_key_two_0123456789' });
  await expect(stranger.inboxes.get(created.id)).rejects.toBeInstanceOf(NotFoundError);
  expect((await stranger.inboxes.list()).items).toEqual([]);

  expect(await keyed.inboxes.delete(created.id)).toMatchObject({ id: created.id, deleted: true });
  await expect(keyed.inboxes.delete(created.id)).rejects.toBeInstanceOf(NotFoundError);
});

test('the current user is reported for each kind of credential', async ({ guest, keyed }) => {
  expect(await guest.me.get()).toMatchObject({ authenticated: false, credential: 'anonymous', user: null });
  const me = await keyed.me.get();
  expect(me).toMatchObject({ authenticated: true, credential: 'apiKey', plan: { id: 'premium' } });
  expect(me.user?.email).toEqual(expect.any(String));
});

test('the extension connect flow gives a session token that works until signed out', async ({ keyed, makeClient }) => {
  const verifier = createPkceVerifier();
  const redirectUri = 'https://extension.example/callback';
  const { code } = await keyed.extension.createCode(pkceChallenge(verifier), redirectUri);
  const token = await makeClient().extension.exchange(code, verifier, redirectUri);
  expect(token).toMatchObject({ tokenType: 'Bearer', accessToken: expect.any(String) });
  expect(token.expiresIn).toBeGreaterThan(0);

  const session = keyed.withOptions({ apiKey: undefined, sessionToken: token.accessToken });
  expect(session.credential).toBe('session');
  const me = await session.me.get();
  expect(me.credential).toBe('session');
  expect(me.user?.id).toBe((await keyed.me.get()).user?.id);
  expect(await session.me.signOut()).toEqual({ signedOut: true });
  await expect(session.me.get()).rejects.toBeInstanceOf(AuthenticationError);
  await session.close(); // shares the dispatcher: keyed still works
  expect((await keyed.me.get()).credential).toBe('apiKey');
});

test('a spent code, a wrong verifier or signing out an API key are bad requests with their codes', async ({ keyed, guest }) => {
  const verifier = createPkceVerifier();
  const { code } = await keyed.extension.createCode(pkceChallenge(verifier), 'https://x.example/cb');
  const wrong = await guest.extension.exchange(code, createPkceVerifier(), 'https://x.example/cb').catch((e: unknown) => e);
  expect(wrong).toBeInstanceOf(BadRequestError);
  expect((wrong as BadRequestError).code).toBe('invalid_grant');
  await expect(guest.extension.exchange(code, verifier, 'https://x.example/cb')).rejects.toMatchObject({ status: 400, code: 'invalid_grant' });
  await expect(keyed.me.signOut()).rejects.toMatchObject({ name: 'BadRequestError', code: 'not_a_session' });
});

test('invalid input, a taken address, an unknown domain and unavailable forwarding each have their error class and code', async ({ keyed }) => {
  await expect(keyed.inboxes.create({ localPart: '.bad' })).rejects.toMatchObject({ name: 'BadRequestError', status: 400, code: 'validation_error' });
  await keyed.inboxes.create({ localPart: 'taken' });
  const taken = await keyed.inboxes.create({ localPart: 'taken' }).catch((e: unknown) => e);
  expect(taken).toBeInstanceOf(ConflictError);
  expect((taken as ConflictError).code).toBe('address_taken');
  expect((taken as Error).message).toMatch(/Choose another localPart/);
  await expect(keyed.inboxes.create({ domainId: 'dom_nope' })).rejects.toMatchObject({ name: 'NotFoundError', code: 'domain_not_found' });
  const inbox = await keyed.inboxes.create();
  await expect(inbox.update({ forwardTo: 'someone@example.test' })).rejects.toMatchObject({ name: 'BadRequestError', code: 'forwarding_unavailable' });
});

test('a wrong API key, or a guest listing inboxes, is an AuthenticationError that says what to check', async ({ makeClient, guest }) => {
  const bad = makeClient({ apiKey: 'tm_not_a_real_key_0000000000000000' });
  const err = await bad.me.get().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AuthenticationError);
  expect((err as AuthenticationError).code).toBe('unauthorized');
  expect((err as Error).message).toMatch(/Check the credential/);
  expect((err as AuthenticationError).requestId).toEqual(expect.any(String));
  await expect(guest.inboxes.list()).rejects.toBeInstanceOf(AuthenticationError);
  await expect(makeClient({ inboxToken: 'tmi_forged' }).me.get()).rejects.toBeInstanceOf(AuthenticationError);
});

test.describe('with plans and limits', () => {
  test.use({ serverOptions: { plans: { guest: { customAddresses: false } }, maxRequestBytes: 256 } });

  test('a custom address without the entitlement is a PermissionDeniedError', async ({ guest, keyed }) => {
    const err = await guest.inboxes.create({ localPart: 'chosen' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect((err as PermissionDeniedError).code).toBe('plan_required');
    expect((await keyed.inboxes.create({ localPart: 'chosen' })).localPart).toBe('chosen');
  });

  test('a request body over the limit is a PayloadTooLargeError', async ({ keyed }) => {
    const err = await keyed.inboxes.create({ label: 'x'.repeat(199), localPart: 'a'.repeat(60) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect((err as PayloadTooLargeError).code).toBe('payload_too_large');
  });
});

test.describe('with a tight rate limit', () => {
  test.use({ serverOptions: { rateLimit: 3 } });

  test('every result carries the rate-limit values, and going over is a RateLimitError with retryAfter', async ({ makeClient }) => {
    const client = makeClient({ apiKey: KEY, retry: { maxRetryAfterMs: 500 } });
    const first = await client.domains.list().withResponse();
    expect(first.response.rateLimit).toMatchObject({ limit: 3, remaining: 2 });
    expect(first.response.rateLimit.reset).toBeGreaterThan(0);
    const page = await client.inboxes.list();
    expect(page.rateLimit.remaining).toBe(1);
    await client.me.get();
    const err = await client.me.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    // Retry-After is the time until the window resets: the same number as X-RateLimit-Reset, within the minute.
    const { retryAfter, rateLimit } = err as RateLimitError;
    expect(retryAfter).toBe(rateLimit.reset);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((err as RateLimitError).headers['retry-after']).toBe(String(retryAfter));
    expect((err as RateLimitError).rateLimit.remaining).toBe(0);
    expect((err as RateLimitError).retries).toBe(0);
  });
});
