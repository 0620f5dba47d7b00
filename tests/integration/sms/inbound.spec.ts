/**
 * `phone.send()`: the test's phone texts the app's webhook in Twilio's
 * format, signed so that the app's own `twilio.validateRequest()` passes,
 * and the TwiML reply comes back to the phone as its next SMS.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilioSdk from 'twilio';
import { test, expect } from './fixtures.ts';

const TOKEN = 'app-auth-token-0123456789';

/** A small app: validates the signature as Twilio's docs show, answers STOP with TwiML. */
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
      if (params.Body?.trim().toUpperCase() === 'STOP') reply.message('You are unsubscribed from Acme alerts & will get no more messages.');
      res.writeHead(200, { 'content-type': 'text/xml' }).end(reply.toString());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/twilio/sms`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('STOP from the phone reaches the app signed, and the app\'s TwiML reply is the phone\'s next SMS', async ({ phone }) => {
  const seen: Array<Record<string, string>> = [];
  const app = await startApp(seen);
  try {
    const answer = await phone.send('STOP', { webhook: app.url, authToken: TOKEN, to: '+15005550006' });
    expect(answer.status).toBe(200);
    expect(answer.replies).toEqual(['You are unsubscribed from Acme alerts & will get no more messages.']);
    expect(seen[0]).toMatchObject({ From: phone.number, To: '+15005550006', Body: 'STOP', SmsStatus: 'received', MessageSid: answer.messageSid });

    const reply = await phone.waitForMessage();
    expect(reply.text).toBe('You are unsubscribed from Acme alerts & will get no more messages.');
    expect(reply.from?.address).toBe('+15005550006');

    // Signed with another token, the app's validateRequest refuses it.
    const forged = await phone.send('YES', { webhook: app.url, authToken: 'not-the-app-token' });
    expect(forged.status).toBe(403);
    expect(seen).toHaveLength(1);
  } finally {
    await app.close();
  }
});
