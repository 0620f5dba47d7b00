import { test, expect, startHttpProxy, startTcpProxy } from './fixtures.ts';
import { WaitTimeoutError } from '../../../src/client/index.ts';

function settle<T>(promise: Promise<T>): Promise<T | Error> {
  return promise.catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
}

test('a message that arrives while the stream is cut is delivered once, from the replay after the reconnection', async ({ server, makeClient, send }) => {
  const proxy = await startTcpProxy(new URL(server.url));
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    const waiting = inbox.waitForMessages(2, { subject: 'Code' }, { timeout: 15_000 });
    await expect.poll(() => proxy.liveStreams()).toBe(1);

    proxy.hold(); // the reconnection is accepted but not passed on until the mail is stored
    expect(proxy.cut()).toBeGreaterThan(0);
    await send({ to: inbox.address, subject: 'Code 1', text: 'x' });
    proxy.release();
    await expect.poll(() => proxy.liveStreams()).toBe(1);
    await send({ to: inbox.address, subject: 'Code 2', text: 'x' });

    const messages = await waiting;
    expect(messages.map((m) => m.subject)).toEqual(['Code 1', 'Code 2']);
    expect(proxy.streamRequests()).toBe(2);
    await expect.poll(() => proxy.liveStreams()).toBe(0);
  } finally {
    await proxy.close();
  }
});

test('when the server has no event stream (404), the wait polls the message list and still gets the mail', async ({ server, makeClient, send }) => {
  const proxy = await startHttpProxy(new URL(server.url), '404');
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    await send({ to: inbox.address, subject: 'Already there', text: 'x' });
    const first = await inbox.waitForMessage({ subject: 'Already there' }, { timeout: 10_000 });
    expect(first.subject).toBe('Already there');

    const waiting = inbox.waitForMessage({ subject: 'Welcome' }, { timeout: 10_000 });
    await expect.poll(() => proxy.requests.filter((r) => r.includes('/messages?')).length).toBeGreaterThan(2);
    await send({ to: inbox.address, subject: 'Welcome', text: 'x' });
    expect((await waiting).subject).toBe('Welcome');
    expect(proxy.requests.filter((r) => r.includes('/stream')).length).toBeGreaterThanOrEqual(2);
  } finally {
    await proxy.close();
  }
});

test('a timeout while polling says the stream was unavailable and how often the list was read', async ({ server, makeClient, send }) => {
  const proxy = await startHttpProxy(new URL(server.url), '404');
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    await send({ to: inbox.address, subject: 'Reset your password', text: 'x' });
    const error = await settle(inbox.waitForMessage({ subject: 'Confirm' }, { timeout: 1500 }));
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as Error).message).toContain('subject "Reset your password" did not match "Confirm"');
    expect((error as Error).message).toMatch(/The event stream was unavailable \(the stream failed: GET .*\/stream(?:\?\S*)? failed with 404 not_found.*\); the message list was polled \d+ times\./);
  } finally {
    await proxy.close();
  }
});

test('behind a proxy that buffers the event stream (no ready event), the wait falls back to polling', async ({ server, makeClient, send }) => {
  const proxy = await startHttpProxy(new URL(server.url), 'hang');
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    const waiting = inbox.waitForMessage({ subject: 'Welcome' }, { timeout: 15_000 });
    await send({ to: inbox.address, subject: 'Welcome', text: 'x' });
    expect((await waiting).subject).toBe('Welcome');
    expect(proxy.requests.filter((r) => r.includes('/messages?')).length).toBeGreaterThan(0);
  } finally {
    await proxy.close();
  }
});

test("since: 'now' while polling ignores what the first read of the list found", async ({ server, makeClient, send }) => {
  const proxy = await startHttpProxy(new URL(server.url), '404');
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    await send({ to: inbox.address, subject: 'Code (old)', text: 'x' });
    const waiting = inbox.waitForMessage({ subject: 'Code' }, { since: 'now', timeout: 10_000 });
    await expect.poll(() => proxy.requests.filter((r) => r.includes('/messages?')).length).toBeGreaterThan(0);
    await send({ to: inbox.address, subject: 'Code (new)', text: 'x' });
    expect((await waiting).subject).toBe('Code (new)');
  } finally {
    await proxy.close();
  }
});

test('when the stream comes back, a polling wait returns to it', async ({ server, makeClient, send }) => {
  test.slow(); // the stream is retried every 5 s
  const proxy = await startHttpProxy(new URL(server.url), '404');
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    const waiting = inbox.waitForMessage({ subject: 'Welcome' }, { timeout: 30_000, pollIntervals: [100, 250, 500] });
    await expect.poll(() => proxy.requests.filter((r) => r.includes('/messages?')).length).toBeGreaterThan(0);
    proxy.streamMode = 'pass';
    const streams = () => proxy.requests.filter((r) => r.includes('/stream')).length;
    await expect.poll(streams, { timeout: 15_000 }).toBe(2);
    // Once the stream is live again the polls stop: the count settles.
    let polls = proxy.requests.filter((r) => r.includes('/messages?')).length;
    await expect
      .poll(
        () => {
          const now = proxy.requests.filter((r) => r.includes('/messages?')).length;
          const settled = now === polls;
          polls = now;
          return settled;
        },
        { intervals: [1200], timeout: 10_000 },
      )
      .toBe(true);
    await send({ to: inbox.address, subject: 'Welcome', text: 'x' });
    expect((await waiting).subject).toBe('Welcome');
  } finally {
    await proxy.close();
  }
});

test.describe('with a small rate limit', () => {
  test.use({ serverOptions: { rateLimit: 30 } });

  test('polling slows down as X-RateLimit-Remaining runs low instead of running into 429', async ({ server, makeClient }) => {
    const proxy = await startHttpProxy(new URL(server.url), '404');
    try {
      const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
      const error = await settle(inbox.waitForMessage({ subject: 'Never' }, { timeout: 3000, pollIntervals: [5] }));
      expect(error).toBeInstanceOf(WaitTimeoutError);
      const polls = proxy.requests.filter((r) => r.includes('/messages?')).length;
      expect(polls).toBeGreaterThan(5); // it did poll fast while the allowance was large …
      expect(proxy.statuses).not.toContain(429); // … and never went over it
      expect(proxy.requests.length).toBeLessThan(30);
    } finally {
      await proxy.close();
    }
  });
});

test('a stream that keeps dropping is given up for polling, and the mail still arrives once', async ({ server, makeClient, send }) => {
  const proxy = await startTcpProxy(new URL(server.url));
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    const waiting = inbox.waitForMessages(2, { subject: 'Code' }, { timeout: 20_000 });
    await send({ to: inbox.address, subject: 'Code 1', text: 'x' });
    for (let drop = 1; drop <= 4; drop++) {
      await expect.poll(() => proxy.liveStreams()).toBe(1);
      proxy.cut();
    }
    await expect.poll(() => proxy.listRequests()).toBeGreaterThan(0);
    await send({ to: inbox.address, subject: 'Code 2', text: 'x' });
    expect((await waiting).map((m) => m.subject)).toEqual(['Code 1', 'Code 2']);
  } finally {
    await proxy.close();
  }
});

test('behind a buffering proxy, even a short wait reads the list before its time runs out', async ({ server, makeClient, send }) => {
  const proxy = await startHttpProxy(new URL(server.url), 'hang');
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    await send({ to: inbox.address, subject: 'Welcome', text: 'x' });
    expect((await inbox.waitForMessage({ subject: 'Welcome' }, { timeout: 1500 })).subject).toBe('Welcome');
  } finally {
    await proxy.close();
  }
});
