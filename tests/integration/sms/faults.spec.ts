/**
 * Per-number faults as Twilio reports them, through the real `twilio` SDK:
 * an invalid or unsubscribed number is refused, an undeliverable handset is
 * accepted and reported `undelivered`, a delay holds the SMS.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type twilioSdk from 'twilio';
import { test, expect } from './fixtures.ts';

type RestException = InstanceType<typeof twilioSdk.RestException>;

test('an unsubscribed or invalid number is refused with 21610 or 21211, and nothing is stored', async ({ phone, twilio }) => {
  await phone.failSms('unsubscribed', { count: 1 });
  const unsubscribed = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'code 1' }).then(() => null, (e: unknown) => e as RestException);
  expect({ status: unsubscribed?.status, code: unsubscribed?.code }).toEqual({ status: 400, code: 21610 });
  await phone.failSms('invalid', { count: 1 });
  const invalid = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'code 2' }).then(() => null, (e: unknown) => e as RestException);
  expect({ status: invalid?.status, code: invalid?.code }).toEqual({ status: 400, code: 21211 });
  expect((await phone.handle.messages()).items).toEqual([]);
  // Both faults were for one text each: the next one arrives.
  await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'code 333333' });
  expect((await phone.waitForMessage()).otp()).toBe('333333');
});

test('an undeliverable handset is accepted, reported sent then undelivered with 30003 (only the failure carries the code, as Twilio sends it) to the StatusCallback, and never arrives', async ({ phone, twilio }) => {
  const statuses: Array<Record<string, string>> = [];
  const app = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      statuses.push(Object.fromEntries(new URLSearchParams(body)));
      res.end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  try {
    await phone.failSms('undeliverable', { count: 1 });
    const sent = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'code 4', statusCallback: `http://127.0.0.1:${(app.address() as AddressInfo).port}/status` });
    expect(sent.status).toBe('queued');
    await expect.poll(() => statuses.length).toBe(2);
    expect(statuses.map((s) => [s.MessageStatus, s.ErrorCode])).toEqual([['sent', undefined], ['undelivered', '30003']]);
    await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'code 555555' });
    const next = await phone.waitForMessage();
    expect(next.otp()).toBe('555555');
    expect(next.seq).toBe(1);
  } finally {
    await new Promise<void>((resolve) => app.close(() => resolve()));
  }
});

test('a delayed SMS is accepted at once and arrives after the delay, to the wait already running', async ({ phone, twilio }) => {
  await phone.delaySms(1_500, { count: 1 });
  const waiting = phone.waitForMessage();
  const sent = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'code 666666' });
  expect(sent.status).toBe('queued');
  expect((await waiting).otp()).toBe('666666');
});
