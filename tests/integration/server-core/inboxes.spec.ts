import nodemailer from 'nodemailer';
import { test, expect, expectError, KEY_A } from './fixtures.ts';

test('GET /domains lists the configured domains, the default one first', async ({ api }) => {
  const res = await api('GET', '/domains');
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual([{ id: expect.stringMatching(/^dom_/), domain: 'inboxkit.example.com', isDefault: true }]);
});

test.describe('with two domains', () => {
  test.use({ serverOptions: { domains: ['first.test', 'second.test'] } });

  test('an inbox is created on the domain given by id, with a random local part', async ({ api }) => {
    const domains = (await api('GET', '/domains')).body.data;
    expect(domains.map((d: { domain: string }) => d.domain)).toEqual(['first.test', 'second.test']);
    const res = await api('POST', '/inboxes', { body: { domainId: domains[1].id } });
    expect(res.status).toBe(200);
    expect(res.body.data.domain).toBe('second.test');
    expect(res.body.data.address).toBe(`${res.body.data.localPart}@second.test`);
  });
});

test('an anonymous POST /inboxes without a body creates a guest inbox on the default domain and returns its token once', async ({ api }) => {
  const res = await api('POST', '/inboxes');
  expect(res.status).toBe(200);
  const inbox = res.body.data;
  expect(inbox).toEqual({
    id: expect.stringMatching(/^ibx_/),
    address: `${inbox.localPart}@inboxkit.example.com`,
    localPart: expect.stringMatching(/^[a-z][a-z0-9]{11}$/),
    domainId: expect.stringMatching(/^dom_/),
    domain: 'inboxkit.example.com',
    label: null,
    forwardTo: null,
    createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    expiresAt: expect.stringMatching(/Z$/),
    messageCount: 0,
    token: expect.stringMatching(/^tmi_/),
  });
  // Guest plan: one day.
  expect(Date.parse(inbox.expiresAt) - Date.parse(inbox.createdAt)).toBe(86_400_000);
  const read = await api('GET', `/inboxes/${inbox.id}`, { inboxToken: inbox.token });
  expect(read.status).toBe(200);
  expect(read.body.data).not.toHaveProperty('token');
  expect(read.body.data).toEqual({ ...inbox, token: undefined });
});

test('a local part and a label are kept as given; the address is taken case-insensitively', async ({ api }) => {
  const res = await api('POST', '/inboxes', { body: { localPart: 'Alice.Smith+1', label: 'sign-up test' } });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ address: 'Alice.Smith+1@inboxkit.example.com', label: 'sign-up test' });
  expectError(await api('POST', '/inboxes', { body: { localPart: 'alice.smith+1' } }), 409, 'address_taken');
});

test('an invalid body is a validation_error naming the field', async ({ api }) => {
  const res = await api('POST', '/inboxes', { body: { localPart: '.bad' } });
  expectError(res, 400, 'validation_error');
  expect(res.body.error.message).toContain('localPart');
  const wrongType = await api('POST', '/inboxes', { body: { label: 42 } });
  expectError(wrongType, 400, 'validation_error');
  expect(wrongType.body.error.message).toContain('label');
});

test('an unknown domain id is domain_not_found', async ({ api }) => {
  expectError(await api('POST', '/inboxes', { body: { domainId: 'dom_nope' } }), 404, 'domain_not_found');
});

test.describe('when the guest plan excludes custom addresses', () => {
  test.use({ serverOptions: { plans: { guest: { customAddresses: false } } } });

  test('a guest asking for a local part gets plan_required, an API key user does not', async ({ api }) => {
    expectError(await api('POST', '/inboxes', { body: { localPart: 'bob' } }), 403, 'plan_required');
    expect((await api('POST', '/inboxes', { body: {} })).status).toBe(200);
    expect((await api('POST', '/inboxes', { body: { localPart: 'bob' }, bearer: KEY_A })).status).toBe(200);
  });
});

test.describe('when the premium plan allows two active inboxes', () => {
  test.use({ serverOptions: { plans: { premium: { maxActiveInboxes: 2 } } } });

  test('the third inbox is plan_required until one is deleted', async ({ api }) => {
    const first = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data;
    await api('POST', '/inboxes', { bearer: KEY_A });
    expectError(await api('POST', '/inboxes', { bearer: KEY_A }), 403, 'plan_required');
    await api('DELETE', `/inboxes/${first.id}`, { bearer: KEY_A });
    expect((await api('POST', '/inboxes', { bearer: KEY_A })).status).toBe(200);
  });
});

test('an inbox created with an API key belongs to the user and lives a week', async ({ api }) => {
  const created = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data;
  expect(Date.parse(created.expiresAt) - Date.parse(created.createdAt)).toBe(7 * 86_400_000);
  const list = await api('GET', '/inboxes', { bearer: KEY_A });
  expect(list.body.data.items.map((i: { id: string }) => i.id)).toEqual([created.id]);
});

test('PATCH sets and clears the label', async ({ api }) => {
  const inbox = (await api('POST', '/inboxes')).body.data;
  const set = await api('PATCH', `/inboxes/${inbox.id}`, { inboxToken: inbox.token, body: { label: 'checkout' } });
  expect(set.status).toBe(200);
  expect(set.body.data.label).toBe('checkout');
  const cleared = await api('PATCH', `/inboxes/${inbox.id}`, { inboxToken: inbox.token, body: { label: null } });
  expect(cleared.body.data.label).toBeNull();
});

test('PATCH with no field is a validation_error naming the fields', async ({ api }) => {
  const inbox = (await api('POST', '/inboxes')).body.data;
  const res = await api('PATCH', `/inboxes/${inbox.id}`, { inboxToken: inbox.token, body: {} });
  expectError(res, 400, 'validation_error');
  expect(res.body.error.message).toContain('label, forwardTo');
});

test('setting forwardTo without a relay is forwarding_unavailable, and nothing is stored', async ({ api }) => {
  const inbox = (await api('POST', '/inboxes')).body.data;
  const res = await api('PATCH', `/inboxes/${inbox.id}`, { inboxToken: inbox.token, body: { forwardTo: 'me@example.com' } });
  expectError(res, 400, 'forwarding_unavailable');
  expect((await api('GET', `/inboxes/${inbox.id}`, { inboxToken: inbox.token })).body.data.forwardTo).toBeNull();
  // Clearing is always fine.
  expect((await api('PATCH', `/inboxes/${inbox.id}`, { inboxToken: inbox.token, body: { forwardTo: null } })).status).toBe(200);
});

test.describe('with a relay configured', () => {
  test.use({ serverOptions: { relayUrl: 'smtp://127.0.0.1:9', forwardAllow: ['example.com'] } });

  test('forwardTo is set, validated as an address, and cleared with null', async ({ api }) => {
    const inbox = (await api('POST', '/inboxes')).body.data;
    const set = await api('PATCH', `/inboxes/${inbox.id}`, { inboxToken: inbox.token, body: { forwardTo: 'me@example.com' } });
    expect(set.status).toBe(200);
    expect(set.body.data.forwardTo).toBe('me@example.com');
    const bad = await api('PATCH', `/inboxes/${inbox.id}`, { inboxToken: inbox.token, body: { forwardTo: 'not an address' } });
    expectError(bad, 400, 'validation_error');
    expect(bad.body.error.message).toContain('forwardTo');
    const cleared = await api('PATCH', `/inboxes/${inbox.id}`, { inboxToken: inbox.token, body: { forwardTo: null } });
    expect(cleared.body.data.forwardTo).toBeNull();
  });
});

test('DELETE removes the inbox with its messages, counts them, and the address is free again', async ({ api, server }) => {
  const inbox = (await api('POST', '/inboxes', { body: { localPart: 'gone' } })).body.data;
  const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true });
  for (const subject of ['one', 'two']) {
    await transport.sendMail({ from: 'sender@example.com', to: inbox.address, subject, text: subject });
  }
  transport.close();
  expect((await api('GET', `/inboxes/${inbox.id}`, { inboxToken: inbox.token })).body.data.messageCount).toBe(2);

  const res = await api('DELETE', `/inboxes/${inbox.id}`, { inboxToken: inbox.token });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ data: { id: inbox.id, deleted: true, messagesDeleted: 2 } });
  // Its token died with it.
  expectError(await api('GET', `/inboxes/${inbox.id}`, { inboxToken: inbox.token }), 401, 'unauthorized');
  expectError(await api('GET', `/inboxes/${inbox.id}`, { bearer: KEY_A }), 404, 'inbox_not_found');
  expect((await api('POST', '/inboxes', { body: { localPart: 'gone' } })).status).toBe(200);
});

test('GET /inboxes with an inbox token lists exactly that inbox', async ({ api }) => {
  const mine = (await api('POST', '/inboxes')).body.data;
  await api('POST', '/inboxes');
  const res = await api('GET', '/inboxes', { inboxToken: mine.token });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ items: [{ ...mine, token: undefined }], nextCursor: null });
});

test('pages of GET /inboxes cover every inbox once, newest first, while inboxes are created in between', async ({ api }) => {
  const made: string[] = [];
  for (let i = 0; i < 5; i++) made.push((await api('POST', '/inboxes', { bearer: KEY_A })).body.data.id);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await api('GET', `/inboxes?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { bearer: KEY_A });
    expect(res.status).toBe(200);
    expect(res.body.data.items.length).toBeLessThanOrEqual(2);
    seen.push(...res.body.data.items.map((i: { id: string }) => i.id));
    cursor = res.body.data.nextCursor;
    // New inboxes arrive between pages; they are newer than the cursor, so not in later pages.
    if (pages++ === 0) await api('POST', '/inboxes', { bearer: KEY_A });
  } while (cursor !== null);
  expect(seen).toEqual([...made].reverse());
  expect(pages).toBe(3);
});

test('a bad cursor or limit is a validation_error', async ({ api }) => {
  const bad = await api('GET', '/inboxes?cursor=garbage', { bearer: KEY_A });
  expectError(bad, 400, 'validation_error');
  expect(bad.body.error.message).toContain('cursor');
  for (const limit of ['0', '101', 'ten']) {
    const res = await api('GET', `/inboxes?limit=${limit}`, { bearer: KEY_A });
    expectError(res, 400, 'validation_error');
    expect(res.body.error.message).toContain('limit');
  }
  expect((await api('GET', '/inboxes?limit=100', { bearer: KEY_A })).status).toBe(200);
});

test.describe('with a relay and no domain allowed for guests', () => {
  test.use({ serverOptions: { relayUrl: 'smtp://127.0.0.1:9' } });

  test('a guest cannot forward through the relay; an API-key user can', async ({ api }) => {
    const guest = (await api('POST', '/inboxes')).body.data;
    const refused = await api('PATCH', `/inboxes/${guest.id}`, { inboxToken: guest.token, body: { forwardTo: 'victim@example.org' } });
    expectError(refused, 403, 'plan_required');
    expect(refused.body.error.message).toContain('--forward-allow');
    expect((await api('GET', `/inboxes/${guest.id}`, { inboxToken: guest.token })).body.data.forwardTo).toBeNull();
    const owned = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data;
    const set = await api('PATCH', `/inboxes/${owned.id}`, { bearer: KEY_A, body: { forwardTo: 'me@example.org' } });
    expect(set.status).toBe(200);
    expect(set.body.data.forwardTo).toBe('me@example.org');
  });
});

test.describe('with a relay and --forward-allow example.com', () => {
  test.use({ serverOptions: { relayUrl: 'smtp://127.0.0.1:9', forwardAllow: ['example.com'] } });

  test('a guest may forward to the allowed domain and its subdomains, and to nothing else', async ({ api }) => {
    const guest = (await api('POST', '/inboxes')).body.data;
    for (const ok of ['me@example.com', 'me@mail.example.com', 'me@EXAMPLE.COM']) {
      expect((await api('PATCH', `/inboxes/${guest.id}`, { inboxToken: guest.token, body: { forwardTo: ok } })).status, ok).toBe(200);
    }
    for (const no of ['me@example.com.evil.test', 'me@notexample.com', 'me@example.org']) {
      const res = await api('PATCH', `/inboxes/${guest.id}`, { inboxToken: guest.token, body: { forwardTo: no } });
      expectError(res, 403, 'plan_required');
      expect(res.body.error.message).toContain('example.com');
    }
  });
});
