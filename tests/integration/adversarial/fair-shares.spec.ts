/**
 * Fair shares (issue 36): a bounded pool gives each caller its own share, so
 * one caller can use up only its own. A guest that holds every slot it may
 * have leaves the rest to others, a user on the same address (every local
 * test shares 127.0.0.1) included, and the service answers /healthz throughout.
 */
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import { test, expect, sendRaw, startHarness } from './helpers.ts';
import type { Harness } from './helpers.ts';
import type { CreatedInbox } from '../../../src/wire/schemas.ts';

const KEY = 'tm_fairsharefairsharefairshare01';

/** A spam scanner that accepts connections and never answers, until the test lets go of them; `received` holds what each was sent. */
async function silentScanner(): Promise<{ url: string; sockets: Set<Socket>; received: Map<Socket, string>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const received = new Map<Socket, string>();
  // Half-open allowed: reading the request must not answer the client's end of it with an end.
  const listener = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    received.set(socket, '');
    socket.on('data', (d: Buffer) => received.set(socket, (received.get(socket) ?? '') + d.toString('latin1')));
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;
  return {
    url: `spamd://127.0.0.1:${port}`,
    sockets,
    received,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => listener.close(resolve));
    },
  };
}

/** Mails an inbox and returns the id of the stored message. */
async function mailed(harness: Harness, inbox: CreatedInbox, headers: Record<string, string>): Promise<string> {
  const reply = await sendRaw(harness.server.smtpPort, 'a@acme.example', [inbox.address], `From: a@acme.example\r\nTo: ${inbox.address}\r\nSubject: scan me\r\n\r\nhello\r\n`);
  expect(reply.code).toBe(250);
  const list = await harness.call(`/inboxes/${inbox.id}/messages`, { headers });
  return (list.json as { data: { items: Array<{ id: string }> } }).data.items[0]!.id;
}

test('a guest holding its share of spam checks gets 429 naming the share, while a user on the same address is still served', async () => {
  test.setTimeout(120_000);
  const scanner = await silentScanner();
  const harness = await startHarness({ apiKeys: [KEY], spamCheck: scanner.url, spamCheckTimeoutMs: 120_000 });
  try {
    // A guest with two inboxes (two inbox tokens), and a user, all on 127.0.0.1.
    const guest = await Promise.all([harness.createInbox(), harness.createInbox()]);
    const guestChecks = await Promise.all(guest.map(async (inbox) => ({ id: await mailed(harness, inbox, { 'x-inbox-token': inbox.token }), headers: { 'x-inbox-token': inbox.token } })));
    const userHeaders = { authorization: `Bearer ${KEY}` };
    const userInbox = await harness.createInbox({}, userHeaders);
    const userMessage = await mailed(harness, userInbox, userHeaders);
    const check = (id: string, headers: Record<string, string>) => harness.call(`/messages/${id}/spam-check`, { method: 'POST', headers });

    // Sixteen at once (the node's whole pool), eight through each of the guest's tokens: its share
    // is eight, of which the scanner is sent five (spamd's children), the other three wait their turn.
    const pending = Array.from({ length: 16 }, (_, i) => check(guestChecks[i % 2]!.id, guestChecks[i % 2]!.headers));
    await expect.poll(() => scanner.sockets.size).toBe(5);
    const answered: Array<Awaited<(typeof pending)[number]>> = [];
    for (const p of pending) void p.then((r) => answered.push(r));
    await expect.poll(() => answered.length).toBe(8);
    for (const r of answered) {
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('1');
      expect((r.json as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'limit_reached',
        message: '8 spam checks of guests at 127.0.0.1 are already running, the share one caller may hold (of 16 per node); try again when one has answered.',
      });
    }
    expect((await fetch(`${harness.server.url}/healthz`)).status).toBe(200);

    // The user on the same address gets a slot of its share (its turn at the scanner: the next test).
    const userCheck = check(userMessage, userHeaders);
    // The scanner lets go: every admitted check ends as a failed scan, not as a refusal.
    const release = setInterval(() => {
      for (const socket of scanner.sockets) socket.destroy();
    }, 50);
    let ended: Array<Awaited<(typeof pending)[number]>>;
    try {
      ended = await Promise.all([...pending, userCheck]);
    } finally {
      clearInterval(release);
    }
    expect(ended.filter((r) => r.status === 502)).toHaveLength(9);
    expect((await userCheck).status).toBe(502);
  } finally {
    await harness.close();
    await scanner.close();
  }
});

const KEY_2 = 'tm_fairsharefairsharefairshare02';

test('a user\'s spam check waits for one scan to end, not for the guest\'s queue: the scanner is sent 5 at once and the user\'s goes next', async () => {
  test.setTimeout(120_000);
  const scanner = await silentScanner();
  const harness = await startHarness({ apiKeys: [KEY, KEY_2], spamCheck: scanner.url, spamCheckTimeoutMs: 120_000 });
  try {
    const guestInbox = await harness.createInbox();
    const guestHeaders = { 'x-inbox-token': guestInbox.token };
    const guestMessage = await mailed(harness, guestInbox, guestHeaders);
    const users = await Promise.all(
      [KEY, KEY_2].map(async (key) => {
        const headers = { authorization: `Bearer ${key}` };
        const inbox = await harness.createInbox({}, headers);
        return { headers, inbox, message: await mailed(harness, inbox, headers) };
      }),
    );
    const check = (id: string, headers: Record<string, string>) => harness.call(`/messages/${id}/spam-check`, { method: 'POST', headers });
    const sentTo = (address: string) => [...scanner.received.values()].filter((data) => data.includes(`To: ${address}`)).length;

    // The guest's whole share (8): five sent to the scanner, three waiting.
    const pending = Array.from({ length: 8 }, () => check(guestMessage, guestHeaders));
    await expect.poll(() => scanner.sockets.size).toBe(5);
    // The user's check, then the second user's eight: the node holds 16, so exactly one of those is
    // refused once the first user's check is held (admitted checks are queued in the same step).
    pending.push(check(users[0]!.message, users[0]!.headers));
    const probes = Array.from({ length: 8 }, () => check(users[1]!.message, users[1]!.headers));
    const refused: number[] = [];
    for (const p of probes) void p.then((r) => r.status === 429 && refused.push(r.status));
    await expect.poll(() => refused.length).toBe(1);
    pending.push(...probes);
    expect(sentTo(users[0]!.inbox.address)).toBe(0);

    // One guest scan ends: the next sent is the first user's (nothing in flight, first in line), not the guest's.
    const [first] = scanner.sockets;
    first!.destroy();
    await expect.poll(() => sentTo(users[0]!.inbox.address)).toBe(1);
    expect(sentTo(guestInbox.address)).toBe(5);
    // The next: the second user's, still ahead of the guest's three waiting ones.
    const [second] = scanner.sockets;
    second!.destroy();
    await expect.poll(() => sentTo(users[1]!.inbox.address)).toBe(1);
    expect(sentTo(guestInbox.address)).toBe(5);
    expect(scanner.sockets.size).toBe(5);

    const letGo = setInterval(() => {
      for (const socket of scanner.sockets) socket.destroy();
    }, 50);
    try {
      await Promise.all(pending);
    } finally {
      clearInterval(letGo);
    }
  } finally {
    await harness.close();
    await scanner.close();
  }
});

test('a forged on-behalf header does not move a guest to another address: the guest-inbox cap still counts its own', async () => {
  const harness = await startHarness({ maxGuestInboxesPerAddress: 1 });
  try {
    await harness.createInbox();
    const forged = await harness.call('/inboxes', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-inboxkit-on-behalf-of': '192.0.2.99 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      body: '{}',
    });
    expect(forged.status).toBe(429);
    expect((forged.json as { error: { message: string } }).error.message).toContain('Too many active guest inboxes from 127.0.0.1');
  } finally {
    await harness.close();
  }
});
