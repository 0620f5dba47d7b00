/**
 * Mailgun's webhooks through the real `mailgun.js`: registered with
 * `webhooks.create(domain, id, url)` (and the form API it calls), each
 * recipient's `delivered` or `failed` event posted in Mailgun's shape, its
 * `signature` verified as Mailgun's docs tell apps to: the HMAC-SHA256 of
 * `timestamp + token` with the webhook signing key, in hex.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import FormData from 'form-data';
import Mailgun from 'mailgun.js';
import { test, expect } from './fixtures.ts';

const API_KEY = 'key-webhooks-test';

interface MailgunPost {
  signature: { timestamp: string; token: string; signature: string };
  'event-data': { event: string; severity?: string; reason?: string; recipient: string; message: { headers: { 'message-id': string } }; 'delivery-status': { code: number } };
}

// #region verify
/** Mailgun's documented check: HMAC-SHA256(signing key, timestamp + token), hex, compared in constant time. */
function verifyMailgun(signingKey: string, { timestamp, token, signature }: MailgunPost['signature']): boolean {
  const expected = Buffer.from(createHmac('sha256', signingKey).update(timestamp + token).digest('hex'));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
// #endregion

async function receiver(): Promise<{ url: string; posts: Array<{ path: string; body: MailgunPost }>; server: Server }> {
  const posts: Array<{ path: string; body: MailgunPost }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', body: JSON.parse(body) as MailgunPost });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posts, server };
}

test('webhooks.create() registers each event id, and each recipient\'s delivered or failed event arrives signed as Mailgun signs it', async ({ env, inbox, createInbox }) => {
  const app = await receiver();
  try {
    const mg = new Mailgun(FormData).client({ username: 'api', key: API_KEY, url: env.INBOXKIT_MAILGUN_URL ?? '' });
    const created = await mg.webhooks.create('acme.test', 'delivered', `${app.url}/delivered`, false);
    expect(created).toMatchObject({ id: 'delivered', url: `${app.url}/delivered`, urls: [`${app.url}/delivered`] });
    await mg.webhooks.create('acme.test', 'permanent_fail', `${app.url}/failed`, false);
    await mg.webhooks.create('acme.test', 'temporary_fail', `${app.url}/failed`, false);
    const signingKey = ((await (await fetch(`${env.INBOXKIT_MAILGUN_URL}/v5/accounts/http_signing_key`, { headers: { authorization: `Basic ${Buffer.from(`api:${API_KEY}`).toString('base64')}` } })).json()) as { http_signing_key: string }).http_signing_key;
    expect(signingKey).toBe(API_KEY);

    const [bouncing, greylisting] = [await createInbox(), await createInbox()];
    await bouncing.failDeliveries({ code: 550, enhancedStatus: '5.2.2' });
    await greylisting.failDeliveries({ code: 451, enhancedStatus: '4.2.0' });
    const sent = await mg.messages.create('acme.test', { from: 'a@acme.test', to: [inbox.address, bouncing.address, greylisting.address], subject: 'Evented', text: 'code 515151' });
    expect((await inbox.waitForMessage({ subject: 'Evented' })).otp()).toBe('515151');

    await expect.poll(() => app.posts.length).toBe(3);
    expect(app.posts.every((post) => verifyMailgun(signingKey, post.body.signature))).toBe(true);
    // Mailgun's events name the message by its id without the angle brackets messages.create() answers.
    expect(new Set(app.posts.map((post) => `<${post.body['event-data'].message.headers['message-id']}>`))).toEqual(new Set([sent.id]));
    const seen = app.posts.map((post) => `${post.path} ${post.body['event-data'].event} ${post.body['event-data'].severity ?? '-'} ${post.body['event-data'].recipient}`);
    expect(seen.sort()).toEqual([`/delivered delivered - ${inbox.address}`, `/failed failed permanent ${bouncing.address}`, `/failed failed temporary ${greylisting.address}`].sort());
    expect(app.posts.find((post) => post.body['event-data'].severity === 'permanent')?.body['event-data']['delivery-status'].code).toBe(550);

    const forged = { ...app.posts[0]!.body.signature, timestamp: String(Number(app.posts[0]!.body.signature.timestamp) + 1) };
    expect(verifyMailgun(signingKey, forged)).toBe(false);
    expect(verifyMailgun('another-key', app.posts[0]!.body.signature)).toBe(false);
  } finally {
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
  }
});

test('list() and destroy() read and remove the registrations; a destroyed webhook is posted nothing, and a target off loopback is refused at registration', async ({ env, inbox }) => {
  const app = await receiver();
  try {
    const mg = new Mailgun(FormData).client({ username: 'api', key: API_KEY, url: env.INBOXKIT_MAILGUN_URL ?? '' });
    await mg.webhooks.create('quiet.test', 'delivered', `${app.url}/d`, false);
    expect(await mg.webhooks.list('quiet.test', {})).toEqual({ delivered: { urls: [`${app.url}/d`] } });
    await mg.webhooks.destroy('quiet.test', 'delivered');
    expect(await mg.webhooks.list('quiet.test', {})).toEqual({});
    await mg.messages.create('quiet.test', { from: 'a@quiet.test', to: [inbox.address], subject: 'Unheard', text: 'x' });
    await inbox.waitForMessage({ subject: 'Unheard' });
    const refused = await mg.webhooks.create('quiet.test', 'delivered', 'https://hooks.example.com/mailgun', false).then(
      () => null,
      (error: unknown) => error as { status: number; details: string },
    );
    expect(refused?.status).toBe(400);
    expect(refused?.details).toContain('not a loopback host');
    await inbox.expectNoMessage({ subject: 'never' }, { within: 300 });
    expect(app.posts).toEqual([]);
  } finally {
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
  }
});
