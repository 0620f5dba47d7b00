/**
 * Per-number faults through every other intake, each in its provider's own
 * shape and through its own SDK: AWS SNS (`@aws-sdk/client-sns`), Vonage's
 * SMS API (`@vonage/server-sdk`), Twilio Verify v2 (`twilio`) and the plain
 * `POST /api/v1/sms` (inboxkit's error envelope).
 */
import { CheckIfPhoneNumberIsOptedOutCommand, InvalidParameterException, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Vonage } from '@vonage/server-sdk';
import type twilioSdk from 'twilio';
import { test, expect } from './fixtures.ts';

type RestException = InstanceType<typeof twilioSdk.RestException>;

test.describe('AWS SNS', () => {
  let sns: SNSClient;
  test.beforeEach(({ local }) => {
    sns = new SNSClient({ region: 'us-east-1', endpoint: `${local.url}/sms/sns`, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }, maxAttempts: 1 });
  });
  test.afterEach(() => sns.destroy());

  test('an invalid number is InvalidParameterException; an opted-out or unreachable one is accepted and never arrives, as SNS does', async ({ phone }) => {
    await phone.failSms('invalid', { count: 1 });
    const invalid = await sns.send(new PublishCommand({ PhoneNumber: phone.number, Message: 'code 1' })).then(() => null, (e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidParameterException);
    expect((invalid as InvalidParameterException).message).toContain('is not valid to publish to');

    await phone.failSms('unsubscribed');
    expect((await sns.send(new CheckIfPhoneNumberIsOptedOutCommand({ phoneNumber: phone.number }))).isOptedOut).toBe(true);
    const optedOut = await sns.send(new PublishCommand({ PhoneNumber: phone.number, Message: 'code 2' }));
    expect(optedOut.MessageId).toMatch(/^[0-9a-f-]{36}$/);
    await phone.clearDeliveryFaults();
    expect((await sns.send(new CheckIfPhoneNumberIsOptedOutCommand({ phoneNumber: phone.number }))).isOptedOut).toBe(false);

    await phone.failSms('undeliverable', { count: 1 });
    expect((await sns.send(new PublishCommand({ PhoneNumber: phone.number, Message: 'code 3' }))).MessageId).toBeTruthy();
    expect((await phone.handle.messages()).items).toEqual([]);

    await sns.send(new PublishCommand({ PhoneNumber: phone.number, Message: 'Your code is 414141' }));
    const next = await phone.waitForMessage();
    expect(next.otp()).toBe('414141');
    expect(next.seq).toBe(1);
  });

  test('a delayed SMS is published at once and arrives after the delay, to the wait already running', async ({ phone }) => {
    await phone.delaySms(1_000, { count: 1 });
    const waiting = phone.waitForMessage();
    await sns.send(new PublishCommand({ PhoneNumber: phone.number, Message: 'Your code is 424242' }));
    expect((await waiting).otp()).toBe('424242');
  });
});

test.describe('Vonage SMS API', () => {
  let vonage: Vonage;
  test.beforeEach(({ local }) => {
    vonage = new Vonage({ apiKey: 'abcd1234', apiSecret: 'secret-0123' }, { restHost: `${local.url}/sms/vonage` });
  });

  test('an invalid number is status 6 and an opted-out one status 7; an unreachable one is accepted and never arrives', async ({ phone }) => {
    const statusOf = async (text: string) => {
      const error = (await vonage.sms.send({ to: phone.number.slice(1), from: 'Acme', text }).then(() => null, (e: unknown) => e)) as { response?: { messages: Array<{ status: string; errorText: string }> } } | null;
      return error?.response?.messages[0];
    };
    await phone.failSms('invalid', { count: 1 });
    expect(await statusOf('code 1')).toMatchObject({ status: '6', errorText: expect.stringMatching(/^Invalid Message/) });
    await phone.failSms('unsubscribed', { count: 1 });
    expect(await statusOf('code 2')).toMatchObject({ status: '7', errorText: expect.stringMatching(/^Number Barred/) });
    await phone.failSms('undeliverable', { count: 1 });
    const accepted = await vonage.sms.send({ to: phone.number.slice(1), from: 'Acme', text: 'code 3' });
    expect(accepted.messages[0]?.status).toBe('0');
    expect((await phone.handle.messages()).items).toEqual([]);

    await vonage.sms.send({ to: phone.number.slice(1), from: 'Acme', text: 'Your code is 434343' });
    expect((await phone.waitForMessage()).otp()).toBe('434343');
  });

  test('with a callback, each part gets a delivery receipt: failed (err-code 2) for an unreachable handset, delivered once stored', async ({ phone }) => {
    const receipts: Array<Record<string, string>> = [];
    const app = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        receipts.push(JSON.parse(body) as Record<string, string>);
        res.end();
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/dlr`;
    try {
      await phone.failSms('undeliverable', { count: 1 });
      const long = `Your code is 454545. ${'Thank you for choosing Acme. '.repeat(6)}`;
      const failed = await vonage.sms.send({ to: phone.number.slice(1), from: 'Acme', text: long, callback, clientRef: 'signup-1' });
      expect(failed.messageCount).toBe('2');
      await expect.poll(() => receipts.length).toBe(2);
      expect(receipts.map((r) => [r.messageId, r.status, r['err-code'], r.msisdn, r.to, r['client-ref']])).toEqual(
        failed.messages.map((m) => [m.messageId, 'failed', '2', phone.number.slice(1), 'Acme', 'signup-1']),
      );
      expect((await phone.handle.messages()).items).toEqual([]);

      const sent = await vonage.sms.send({ to: phone.number.slice(1), from: 'Acme', text: 'Your code is 464646', callback });
      expect((await phone.waitForMessage()).otp()).toBe('464646');
      await expect.poll(() => receipts.length).toBe(3);
      expect(receipts[2]).toMatchObject({ messageId: sent.messages[0]?.messageId, status: 'delivered', 'err-code': '0' });
    } finally {
      await new Promise<void>((resolve) => app.close(() => resolve()));
    }
  });

  test('a delayed SMS is accepted at once and arrives after the delay', async ({ phone }) => {
    await phone.delaySms(1_000, { count: 1 });
    const waiting = phone.waitForMessage();
    expect((await vonage.sms.send({ to: phone.number.slice(1), from: 'Acme', text: 'Your code is 444444' })).messages[0]?.status).toBe('0');
    expect((await waiting).otp()).toBe('444444');
  });
});

test.describe('Twilio Verify v2', () => {
  test('an invalid number is 60200 and an opted-out one 60410; an unreachable one is pending and its code never arrives', async ({ phone, twilio }) => {
    const verify = twilio.verify.v2.services(`VA${'ef'.repeat(16)}`);
    const failure = (promise: Promise<unknown>) => promise.then(() => null, (e: unknown) => e as RestException);
    await phone.failSms('invalid', { count: 1 });
    const invalid = await failure(verify.verifications.create({ to: phone.number, channel: 'sms' }));
    expect({ status: invalid?.status, code: invalid?.code }).toEqual({ status: 400, code: 60200 });
    await phone.failSms('unsubscribed', { count: 1 });
    const blocked = await failure(verify.verifications.create({ to: phone.number, channel: 'sms' }));
    expect({ status: blocked?.status, code: blocked?.code }).toEqual({ status: 403, code: 60410 });

    await phone.failSms('undeliverable', { count: 1 });
    expect((await verify.verifications.create({ to: phone.number, channel: 'sms' })).status).toBe('pending');
    expect((await phone.handle.messages()).items).toEqual([]);
    // A resend keeps the code, and this time it arrives.
    await verify.verifications.create({ to: phone.number, channel: 'sms' });
    const sms = await phone.waitForMessage();
    expect((await verify.verificationChecks.create({ to: phone.number, code: sms.otp() })).status).toBe('approved');
  });

  test('a delayed verification is pending at once and its code arrives after the delay', async ({ phone, twilio }) => {
    const verify = twilio.verify.v2.services(`VA${'fe'.repeat(16)}`);
    await phone.delaySms(1_000, { count: 1 });
    const waiting = phone.waitForMessage();
    expect((await verify.verifications.create({ to: phone.number, channel: 'sms' })).status).toBe('pending');
    const code = (await waiting).otp();
    expect((await verify.verificationChecks.create({ to: phone.number, code })).status).toBe('approved');
  });
});

test.describe('POST /api/v1/sms', () => {
  const post = (url: string, to: string, text: string) =>
    fetch(`${url}/api/v1/sms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to, from: 'Acme', text }) });

  test('an invalid number is 400 validation_error, an opted-out one 403 recipient_opted_out, an unreachable one 200 undelivered', async ({ phone, local }) => {
    await phone.failSms('invalid', { count: 1 });
    const invalid = await post(local.url, phone.number, 'code 1');
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'validation_error', message: expect.stringMatching(/^to: /) });
    await phone.failSms('unsubscribed', { count: 1 });
    const optedOut = await post(local.url, phone.number, 'code 2');
    expect(optedOut.status).toBe(403);
    expect(((await optedOut.json()) as { error: { code: string } }).error.code).toBe('recipient_opted_out');
    await phone.failSms('undeliverable', { count: 1 });
    const undelivered = await post(local.url, phone.number, 'code 3');
    expect(undelivered.status).toBe(200);
    expect(((await undelivered.json()) as { data: unknown }).data).toMatchObject({ status: 'undelivered', messageId: null, seq: null });
    expect((await phone.handle.messages()).items).toEqual([]);

    const delivered = await post(local.url, phone.number, 'Your code is 454545');
    expect(((await delivered.json()) as { data: unknown }).data).toMatchObject({ status: 'delivered', seq: 1 });
    expect((await phone.waitForMessage()).otp()).toBe('454545');
  });

  test('a delayed SMS is queued at once and arrives after the delay', async ({ phone, local }) => {
    await phone.delaySms(1_000, { count: 1 });
    const waiting = phone.waitForMessage();
    const queued = await post(local.url, phone.number, 'Your code is 464646');
    expect(((await queued.json()) as { data: unknown }).data).toMatchObject({ status: 'queued', messageId: null });
    expect((await waiting).otp()).toBe('464646');
  });
});
