/**
 * `phone.send()`: the test's phone texts the app's webhook in Twilio's
 * format, signed so that the app's own `twilio.validateRequest()` passes,
 * and the TwiML reply comes back to the phone as its next SMS. Twilio's STOP
 * filtering is followed: a one-word STOP opts the phone out before the app
 * hears of it (the app's replies and texts are refused with 21610), START opts
 * it back in.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilioSdk from 'twilio';
import { stopKeyword } from '../../../src/client/internal/inbound-sms.ts';
import { test, expect } from './fixtures.ts';

const TOKEN = 'app-auth-token-0123456789';

/** A small app: validates the signature as Twilio's docs show, answers STOP, START and HELP with TwiML. */
async function startApp(seen: Array<Record<string, string>>) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const params = Object.fromEntries(new URLSearchParams(body));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`;
      if (!twilioSdk.validateRequest(TOKEN, String(req.headers['x-twilio-signature']), url, params)) {
        res.writeHead(403).end('bad signature');
        return;
      }
      seen.push(params);
      const reply = new twilioSdk.twiml.MessagingResponse();
      const word = params.Body?.trim().toUpperCase();
      if (word === 'STOP') reply.message('You are unsubscribed from Acme alerts & will get no more messages.');
      if (word === 'START') reply.message('Welcome back to Acme alerts.');
      if (word === 'HELP') reply.message('Acme alerts: reply STOP to unsubscribe.');
      res.writeHead(200, { 'content-type': 'text/xml' }).end(reply.toString());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/twilio/sms`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('HELP from the phone reaches the app signed, and the app\'s TwiML reply is the phone\'s next SMS', async ({ phone }) => {
  const seen: Array<Record<string, string>> = [];
  const app = await startApp(seen);
  try {
    const answer = await phone.send('HELP', { webhook: app.url, authToken: TOKEN, to: '+15005550006' });
    expect(answer).toMatchObject({ status: 200, keyword: null, replies: ['Acme alerts: reply STOP to unsubscribe.'], undelivered: [] });
    expect(seen[0]).toMatchObject({ From: phone.number, To: '+15005550006', Body: 'HELP', SmsStatus: 'received', MessageSid: answer.messageSid });

    const reply = await phone.waitForMessage();
    expect(reply.text).toBe('Acme alerts: reply STOP to unsubscribe.');
    expect(reply.from?.address).toBe('+15005550006');

    // Signed with another token, the app's validateRequest refuses it.
    const forged = await phone.send('hello', { webhook: app.url, authToken: 'not-the-app-token' });
    expect(forged.status).toBe(403);
    expect(seen).toHaveLength(1);
  } finally {
    await app.close();
  }
});

test('STOP opts the phone out as Twilio does: the app hears it, its reply and later texts are refused with 21610, and START opts it back in', async ({ phone, twilio }) => {
  const seen: Array<Record<string, string>> = [];
  const app = await startApp(seen);
  try {
    const stop = await phone.send('stop', { webhook: app.url, authToken: TOKEN });
    expect(stop).toMatchObject({ status: 200, keyword: 'opt-out', undelivered: ['You are unsubscribed from Acme alerts & will get no more messages.'] });
    expect(seen.map((p) => p.Body)).toEqual(['stop']);
    const refused = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'Your code is 123456' }).then(() => null, (e: unknown) => e as { status: number; code: number });
    expect({ status: refused?.status, code: refused?.code }).toEqual({ status: 400, code: 21610 });

    const start = await phone.send('START', { webhook: app.url, authToken: TOKEN });
    expect(start).toMatchObject({ keyword: 'opt-in', undelivered: [] });
    expect((await phone.waitForMessage()).text).toBe('Welcome back to Acme alerts.');
    await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'Your code is 654321' });
    expect((await phone.waitForMessage({ text: /654321/ })).otp()).toBe('654321');
  } finally {
    await app.close();
  }
});

test('with stopFiltering off, STOP is an ordinary text: the app\'s reply is texted and the phone stays reachable', async ({ phone }) => {
  const app = await startApp([]);
  try {
    const answer = await phone.send('STOP', { webhook: app.url, authToken: TOKEN, stopFiltering: false });
    expect(answer).toMatchObject({ keyword: null, undelivered: [] });
    expect((await phone.waitForMessage()).text).toBe('You are unsubscribed from Acme alerts & will get no more messages.');
    expect(await phone.handle.deliveryFault()).toBeNull();
  } finally {
    await app.close();
  }
});

test('only a text that is one keyword counts, in any case, as Twilio reads it', () => {
  expect(['STOP', 'stop', ' Stop. ', 'UNSUBSCRIBE', 'cancel', 'End', 'QUIT', 'STOPALL', 'optout', 'REVOKE'].map(stopKeyword)).toEqual(Array(10).fill('opt-out'));
  expect(['START', 'yes', 'Unstop!'].map(stopKeyword)).toEqual(['opt-in', 'opt-in', 'opt-in']);
  expect(['STOP PLEASE', 'please cancel', 'HELP', 'yes please', 'stopped'].map(stopKeyword)).toEqual([null, null, null, null, null]);
});
