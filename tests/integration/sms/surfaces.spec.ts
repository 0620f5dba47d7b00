/**
 * The phone surfaces closed and bounded (issue 45): a node bound to loopback
 * behind a balancer is a shared service, webhooks go only where they may and
 * within their bounds, and no caller takes every number of a country.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { pino } from 'pino';
import { startServer } from '../../../src/server/index.ts';
import { ACCOUNT_SID, AUTH_TOKEN, twilioAt } from './sdks.ts';

const KEY = 'tm_surfaces_key_0123456789abcdef';

async function newPhone(apiUrl: string, headers: Record<string, string> = {}, country = 'US'): Promise<Response> {
  return fetch(`${apiUrl}/phones`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ country }) });
}

test('a node bound to loopback behind a trusted balancer is a shared service: an anonymous provider request is refused, a keyed one reaches its own phones', async () => {
  // The team guide's layout: the node on 127.0.0.1, HAProxy on the same host, trusted with --trust-proxy.
  const server = await startServer({ port: 0, smtpPort: 0, trustProxy: ['127.0.0.1'], apiKeys: [KEY] });
  try {
    const phone = (await (await newPhone(server.apiUrl, { authorization: `Bearer ${KEY}` })).json()) as { data: { phoneNumber: string } };
    const anonymous = await twilioAt(`${server.url}/sms/twilio`, ACCOUNT_SID, AUTH_TOKEN).messages.create({ to: phone.data.phoneNumber, from: '+15005550006', body: 'code 1' }).then(() => null, (e: unknown) => e as { status: number; code: number });
    expect({ status: anonymous?.status, code: anonymous?.code }).toEqual({ status: 401, code: 20003 });
    const plain = await fetch(`${server.apiUrl}/sms`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' }, body: JSON.stringify({ to: phone.data.phoneNumber, text: 'code 2' }) });
    expect(plain.status).toBe(401);
    const keyed = await twilioAt(`${server.url}/sms/twilio`, ACCOUNT_SID, KEY).messages.create({ to: phone.data.phoneNumber, from: '+15005550006', body: 'code 3' });
    expect(keyed.status).toBe('queued');
  } finally {
    await server.close();
  }
});

test('a StatusCallback to one of the service\'s own ports is never called, and one to the app on loopback is', async () => {
  const logged: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });
  const server = await startServer({ port: 0, smtpPort: 0, logger });
  const calls: string[] = [];
  const app = createServer((req, res) => {
    calls.push(req.url ?? '');
    res.end();
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  try {
    const phone = (await (await newPhone(server.apiUrl)).json()) as { data: { phoneNumber: string; id: string; token: string } };
    const twilio = twilioAt(`${server.url}/sms/twilio`, ACCOUNT_SID, AUTH_TOKEN);
    // The service's own HTTP port: a guest must not make the service POST to itself (its API, its viewer, /metrics).
    await twilio.messages.create({ to: phone.data.phoneNumber, from: '+15005550006', body: 'code 1', statusCallback: `${server.url}/api/v1/inboxes` });
    await twilio.messages.create({ to: phone.data.phoneNumber, from: '+15005550006', body: 'code 2', statusCallback: `http://127.0.0.1:${(app.address() as AddressInfo).port}/status` });
    await expect.poll(() => calls.length).toBe(2);
    expect(calls).toEqual(['/status', '/status']);
    await expect.poll(() => logged.filter((line) => line.includes("is one of the service's own")).length).toBe(1);
  } finally {
    await new Promise<void>((resolve) => app.close(() => resolve()));
    await server.close();
  }
});

test('a shared service calls only the webhook targets its operator allows, never its own loopback', async () => {
  const app = createServer((req, res) => {
    calls.push(req.url ?? '');
    res.end();
  });
  const calls: string[] = [];
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const port = (app.address() as AddressInfo).port;
  const refusing = await startServer({ port: 0, smtpPort: 0, trustProxy: ['127.0.0.1'], apiKeys: [KEY] });
  const allowing = await startServer({ port: 0, smtpPort: 0, trustProxy: ['127.0.0.1'], apiKeys: [KEY], webhookAllow: [`127.0.0.1:${port}`] });
  try {
    for (const server of [refusing, allowing]) {
      const phone = (await (await newPhone(server.apiUrl, { authorization: `Bearer ${KEY}` })).json()) as { data: { phoneNumber: string } };
      await twilioAt(`${server.url}/sms/twilio`, ACCOUNT_SID, KEY).messages.create({ to: phone.data.phoneNumber, from: '+15005550006', body: 'code', statusCallback: `http://127.0.0.1:${port}/${server === refusing ? 'refused' : 'allowed'}` });
    }
    await expect.poll(() => calls.length).toBe(2);
    expect(calls).toEqual(['/allowed', '/allowed']);
  } finally {
    await new Promise<void>((resolve) => app.close(() => resolve()));
    await refusing.close();
    await allowing.close();
  }
});

test('no caller takes every number of a country: a guest holds at most half of a country code\'s numbers, and another caller still gets one', async () => {
  const server = await startServer({ port: 0, smtpPort: 0, apiKeys: [KEY] });
  try {
    const statuses: number[] = [];
    // Australia's fiction range holds 30 numbers: a caller's share is 15.
    for (let i = 0; i < 16; i++) statuses.push((await newPhone(server.apiUrl, {}, 'AU')).status);
    expect(statuses.slice(0, 15).every((s) => s === 200)).toBe(true);
    const refused = await newPhone(server.apiUrl, {}, 'AU');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('its share of the country code');
    expect((await newPhone(server.apiUrl, { authorization: `Bearer ${KEY}` }, 'AU')).status).toBe(200);
  } finally {
    await server.close();
  }
});
