/**
 * Plivo's Messages API through the real `plivo` SDK, pointed at the service
 * with its `url` option: the provider added through the three files
 * docs/architecture.md names (its row, its adapter, its routes).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as plivo from 'plivo';
import { test, expect } from './fixtures.ts';

const AUTH_ID = 'MAINBOXKITTEST00000001';
const AUTH_TOKEN = 'plivo-test-token';

function plivoAt(base: string): plivo.Client {
  return new plivo.Client(AUTH_ID, AUTH_TOKEN, { url: `${base}/v1/Account/${AUTH_ID}` } as never);
}

test('messages.create() texts the phone, the answer carries the message uuid the SMS is stored under, and otp() reads the code', async ({ local, phone }) => {
  const client = plivoAt(`${local.url}/sms/plivo`);
  const sent = await client.messages.create('+14155550100', phone.number, 'Your Acme code is 802113');
  expect(sent.messageUuid).toHaveLength(1);
  const sms = await phone.waitForMessage({ from: '+14155550100' });
  expect(sms.otp()).toBe('802113');
  expect(sms.headers['x-inboxkit-sms']).toBe('plivo');
  expect(sms.headers['x-inboxkit-sms-id']).toBe(sent.messageUuid[0]);
});

test('several destinations joined by < each get their own SMS and uuid, through one call of the intake each', async ({ local, createPhone }) => {
  const client = plivoAt(`${local.url}/sms/plivo`);
  const first = await createPhone();
  const second = await createPhone();
  const sent = await client.messages.create('Acme', `${first.number.slice(1)}<${second.number.slice(1)}`, 'code 4410');
  expect(sent.messageUuid).toHaveLength(2);
  expect((await first.waitForMessage()).text).toBe('code 4410');
  expect((await second.waitForMessage()).text).toBe('code 4410');
});

test('a number without a phone, or a missing field, is Plivo\'s 400 error naming it, thrown by the SDK, and nothing is texted', async ({ local, phone }) => {
  const client = plivoAt(`${local.url}/sms/plivo`);
  const unknown = await client.messages.create('Acme', '+12025550199', 'x').then(() => null, (e: unknown) => e as Error);
  expect(String(unknown)).toContain('is not an active inboxkit phone');
  const empty = await client.messages.create('Acme', phone.number, '').then(() => null, (e: unknown) => e as Error);
  expect(String(empty)).toContain('text parameter is required');
  await phone.expectNoMessage({}, { within: 500 });
});

test('the delivery report reaches the app signed so that the SDK\'s validateSignature passes, and a fault fails it with Plivo\'s code', async ({ local, phone }) => {
  const reports: Array<{ form: Record<string, string>; valid: boolean }> = [];
  const app = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}${req.url}`;
      const valid = Boolean(plivo.validateSignature(url, String(req.headers['x-plivo-signature-v2-nonce']), String(req.headers['x-plivo-signature-v2']), AUTH_TOKEN).valueOf());
      reports.push({ form: Object.fromEntries(new URLSearchParams(body)), valid });
      res.end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/plivo/report`;
    const client = plivoAt(`${local.url}/sms/plivo`);
    const sent = await client.messages.create('Acme', phone.number, 'code 1', { url });
    await expect.poll(() => reports.length).toBe(1);
    expect(reports[0]).toMatchObject({ valid: true, form: { MessageUUID: sent.messageUuid[0], Status: 'delivered' } });
    await phone.failSms('unsubscribed', { count: 1 });
    await client.messages.create('Acme', phone.number, 'code 2', { url });
    await expect.poll(() => reports.length).toBe(2);
    expect(reports[1]).toMatchObject({ valid: true, form: { Status: 'failed', ErrorCode: '200' } });
  } finally {
    await new Promise<void>((resolve) => app.close(() => resolve()));
  }
});

test('a path the emulation does not serve answers Plivo\'s own 404 naming the call, so the SDK says what is missing', async ({ local }) => {
  const response = await fetch(`${local.url}/sms/plivo/v1/Account/${AUTH_ID}/Message/abc/`, { headers: { authorization: `Basic ${Buffer.from(`${AUTH_ID}:${AUTH_TOKEN}`).toString('base64')}` } });
  expect(response.status).toBe(404);
  expect(await response.json()).toMatchObject({ error: expect.stringContaining('POST /v1/Account/{authId}/Message/') });
});
