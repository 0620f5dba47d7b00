/**
 * The wait asks the stream for whole messages (`?include=message`): against
 * the local server it resolves without reading the message again; against a
 * server that sends summaries it reads the message once.
 */
import { expect, startHttpProxy, test } from './fixtures.ts';

const messageReads = (requests: string[]) => requests.filter((r) => /^GET \/api\/v1\/messages\/[^/?]+$/.test(r));

test('against the local server, waitForMessage resolves from the whole message the stream pushed, with no GET of the message', async ({ server, makeClient, send }) => {
  const proxy = await startHttpProxy(new URL(server.url), 'pass');
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    const waiting = inbox.waitForMessage({ subject: 'Your code', html: /<b>\d{6}<\/b>/ }, { timeout: 10_000 });
    await send({ to: inbox.address, subject: 'Your code', html: '<p onclick="x()">Your code is <b>482913</b></p>' });
    const message = await waiting;
    expect(message.otp()).toBe('482913');
    expect(message.html?.trim()).toBe('<p>Your code is <b>482913</b></p>');
    expect(message.headers).toMatchObject({ subject: 'Your code' });
    expect(proxy.requests.some((r) => r.includes('/stream?include=message'))).toBe(true);
    expect(messageReads(proxy.requests)).toEqual([]);
    expect(message.data).toEqual(await inbox.message(message.id));
  } finally {
    await proxy.close();
  }
});

test('against a server that ignores include=message and sends summaries, the wait reads the message once with a GET', async ({ server, makeClient, send }) => {
  const proxy = await startHttpProxy(new URL(server.url), 'pass');
  proxy.ignoreInclude = true;
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    const waiting = inbox.waitForMessage({ subject: 'Welcome' }, { timeout: 10_000 });
    await send({ to: inbox.address, subject: 'Welcome', html: '<p>Hello <a href="https://app.example/start">start</a></p>' });
    const message = await waiting;
    expect(message.link('start').href).toBe('https://app.example/start');
    // The client asked; the stand-in dropped the parameter before the server saw it.
    expect(proxy.requests.some((r) => r.includes('/stream?include=message'))).toBe(true);
    expect(messageReads(proxy.requests)).toEqual([`GET /api/v1/messages/${message.id}`]);
  } finally {
    await proxy.close();
  }
});

test('stream({ includeMessage: true }) gives each event its whole message; without it, whole is null', async ({ makeClient, send }) => {
  const inbox = await makeClient().inboxes.create();
  await send({ to: inbox.address, subject: 'first', text: 'one' });
  for (const includeMessage of [true, false]) {
    const stream = inbox.stream({ lastEventId: 0, includeMessage });
    for await (const event of stream) {
      if (event.type !== 'message') continue;
      expect(event.message.subject).toBe('first');
      if (includeMessage) expect(event.whole).toEqual(await inbox.message(event.message.id));
      else expect(event.whole).toBeNull();
      break;
    }
  }
});
