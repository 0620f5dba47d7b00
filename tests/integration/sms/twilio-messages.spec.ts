/**
 * Twilio Programmable Messaging through the real `twilio` SDK: an app's
 * `messages.create()` reaches the test's phone, and bad input gets Twilio's
 * own error codes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilioSdk from 'twilio';
import { test, expect } from './fixtures.ts';
import { AUTH_TOKEN, twilioAt } from './sdks.ts';

test('an SMS sent with twilio messages.create() is the phone\'s next message, and otp() reads its code', async ({ phone, twilio }) => {
  const sent = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'Your Acme verification code is 482913. It expires in 10 minutes.' });
  expect(sent.sid).toMatch(/^SM[0-9a-f]{32}$/);
  expect(sent).toMatchObject({ status: 'queued', to: phone.number, from: '+15005550006', numSegments: '1', direction: 'outbound-api', apiVersion: '2010-04-01' });

  const sms = await phone.waitForMessage();
  expect(sms.text).toBe('Your Acme verification code is 482913. It expires in 10 minutes.');
  expect(sms.otp()).toBe('482913');
  expect(sms.from?.address).toBe('+15005550006');
  expect(sms.headers['x-inboxkit-sms']).toBe('twilio');
  expect(sms.headers['x-inboxkit-sms-id']).toBe(sent.sid);
});

test('a wait started before the SMS is sent gets it from the live stream, and a second SMS is the next wait\'s', async ({ phone, twilio }) => {
  const waiting = phone.waitForMessage({ text: /code/ });
  await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'first code 111222' });
  expect((await waiting).otp()).toBe('111222');
  await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'second code 333444' });
  expect((await phone.waitForMessage()).otp()).toBe('333444');
});

test('phones in different countries get numbers of those countries\' fiction ranges', async ({ createPhone }) => {
  const us = await createPhone();
  const au = await createPhone({ country: 'AU' });
  const fr = await createPhone({ country: 'FR' });
  expect(us.number).toMatch(/^\+1\d{3}55501\d{2}$/);
  expect(au.number).toMatch(/^\+6149157\d{4}$/);
  expect(fr.number).toMatch(/^\+3363998\d{4}$/);
  expect(au.address).toBe(`${au.number}@${au.domain}`);
});

test('bad requests get Twilio\'s error codes and store nothing', async ({ phone, twilio }) => {
  const cases: Array<[Record<string, string>, number, number]> = [
    [{ to: 'not-a-number', from: '+15005550006', body: 'x' }, 400, 21211],
    [{ to: '+12025551234', from: '+15005550006', body: 'x' }, 400, 21612],
    [{ to: phone.number, body: 'x' }, 400, 21603],
    [{ to: phone.number, from: '+15005550006', body: 'x'.repeat(1601) }, 400, 21617],
  ];
  for (const [params, status, code] of cases) {
    const error = (await twilio.messages.create(params as never).then(() => null, (e: unknown) => e)) as InstanceType<typeof twilioSdk.RestException> | null;
    expect(error, JSON.stringify(params).slice(0, 80)).toBeInstanceOf(twilioSdk.RestException);
    expect({ status: error?.status, code: error?.code }).toEqual({ status, code });
    expect(error?.moreInfo).toBe(`https://www.twilio.com/docs/errors/${code}`);
  }
  // Each refusal is answered before anything is stored.
  expect((await phone.handle.messages()).items).toEqual([]);
});

test('the StatusCallback gets sent then delivered, signed so that twilio.validateRequest passes', async ({ phone, twilio }) => {
  const calls: Array<{ params: Record<string, string>; signature: string }> = [];
  const app = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      calls.push({ params: Object.fromEntries(new URLSearchParams(body)), signature: String(req.headers['x-twilio-signature']) });
      res.end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/twilio/status`;
  try {
    const sent = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'code 909090', statusCallback: url });
    await expect.poll(() => calls.length).toBe(2);
    expect(calls.map((c) => c.params.MessageStatus)).toEqual(['sent', 'delivered']);
    for (const call of calls) {
      expect(call.params.MessageSid).toBe(sent.sid);
      expect(twilioSdk.validateRequest(AUTH_TOKEN, call.signature, url, call.params)).toBe(true);
      expect(twilioSdk.validateRequest('another-token', call.signature, url, call.params)).toBe(false);
    }
  } finally {
    app.closeAllConnections();
    await new Promise<void>((resolve) => app.close(() => resolve()));
  }
});

test('messages(sid).fetch() reads a sent text back: queued when created, delivered once the phone holds it', async ({ phone, twilio }) => {
  const sent = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'Your code is 246810' });
  await phone.waitForMessage();
  await expect.poll(async () => (await twilio.messages(sent.sid).fetch()).status).toBe('delivered');
  const fetched = await twilio.messages(sent.sid).fetch();
  expect(fetched).toMatchObject({ sid: sent.sid, to: phone.number, from: '+15005550006', body: 'Your code is 246810', errorCode: null, numSegments: '1' });
});

test('a text to a phone failed as undeliverable is fetched as undelivered with error 30003, as Twilio reports it', async ({ phone, twilio }) => {
  await phone.failSms('undeliverable', { count: 1 });
  const sent = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'Your code is 135790' });
  await expect.poll(async () => (await twilio.messages(sent.sid).fetch()).status).toBe('undelivered');
  expect(await twilio.messages(sent.sid).fetch()).toMatchObject({ errorCode: 30003, errorMessage: 'Unreachable destination handset' });
});

test('messages.list() gives this account\'s texts newest first, filtered by To and From, page by page; another account sees none of them', async ({ createPhone, twilio, local }) => {
  const [a, b] = [await createPhone(), await createPhone()];
  const sids: string[] = [];
  for (let i = 0; i < 5; i++) sids.push((await twilio.messages.create({ to: a.number, from: '+15005550006', body: `a ${i}` })).sid);
  await twilio.messages.create({ to: b.number, from: '+15005550007', body: 'b' });
  const toA = await twilio.messages.list({ to: a.number, pageSize: 2 });
  expect(toA.map((m) => m.sid)).toEqual([...sids].reverse());
  expect((await twilio.messages.list({ from: '+15005550007' })).map((m) => m.body)).toEqual(['b']);
  expect(await twilio.messages.list({ to: a.number, limit: 3 })).toHaveLength(3);
  const page = await twilio.messages.page({ to: a.number, pageSize: 2 });
  expect(page.instances.map((m) => m.sid)).toEqual([sids[4], sids[3]]);
  expect(page.nextPageUrl).toBeTruthy();
  expect((await twilio.messages.list({ dateSentAfter: new Date(Date.now() - 60_000), to: a.number })).length).toBe(5);
  expect(await twilio.messages.list({ dateSentBefore: new Date(Date.now() - 60_000) })).toEqual([]);
  const other = twilioAt(`${local.url}/sms/twilio`, `AC${'f'.repeat(32)}`, AUTH_TOKEN);
  expect(await other.messages.list({ to: a.number })).toEqual([]);
  const foreign = await other.messages(sids[0]!).fetch().then(() => null, (e: unknown) => e as { status: number });
  expect(foreign?.status).toBe(404);
});
