/**
 * Resource exhaustion on a shared service (issue 31): one caller floods the
 * service — streams from one token, guest inboxes from one address, an email
 * whose `cid:` images would expand a thousandfold, mail past the stored-bytes
 * cap of memory mode — and the service holds: each flood is cut at its cap
 * with a 429 naming it (or evicts the flooder's own mail), the process's RSS
 * and open handles stay within the stated bound, and a well-behaved client is
 * still served. Bounded in count and time; the server runs in this process,
 * so its RSS and handles are this process's.
 */
import { test, expect, RawSmtp, dataOf, rawMessage, sendRaw, figure } from './helpers.ts';
import type { Harness } from './helpers.ts';
import { amplificationMail } from '../../support/amplification-mail.ts';

const MB = 1024 * 1024;

/** TCP sockets open in this process: both ends of every HTTP connection (client and server run here), and the database pool's. */
const sockets = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length;
/** Connections a PostgreSQL store's pool and bus may open on their own (pool of 10, one LISTEN). */
const POOL_SLACK = 12;

/** Opens a stream; resolves once the server answered, with its status and a way to close it. */
async function open(h: Harness, path: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await fetch(`${h.server.apiUrl}${path}`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const body = res.status === 200 ? null : await res.text();
  // The response is kept: fetch cancels a response it finds garbage-collected, which would close
  // an open stream behind the test's back and give its slot back.
  return { status: res.status, body, response: res, close: () => controller.abort() };
}

test.describe('a stream flood from one token', () => {
  test.use({ harnessOptions: { maxStreamsPerCredential: 20, maxStreamsPerAddress: 60 } });

  test('stops at the per-credential cap with a 429 naming it; another caller still streams; closed streams give their slots back', async ({ harness }) => {
    test.setTimeout(60_000);
    const [flooder, neighbour] = [await harness.createInbox(), await harness.createInbox()];
    const rssBefore = process.memoryUsage().rss;
    const socketsBefore = sockets();
    const streams = [];
    for (let i = 0; i < 20; i++) streams.push(await open(harness, `/inboxes/${flooder.id}/stream`, { 'x-inbox-token': flooder.token }));
    expect(streams.map((s) => s.status)).toEqual(Array(20).fill(200));
    const refused = await Promise.all(Array.from({ length: 30 }, () => open(harness, `/inboxes/${flooder.id}/stream`, { 'x-inbox-token': flooder.token })));
    expect(refused.map((r) => r.status)).toEqual(Array(30).fill(429));
    const error = JSON.parse(refused[0]!.body!).error;
    expect(error.code).toBe('limit_reached');
    expect(error.message).toContain('--max-streams-per-credential');
    // The /me/events stream of the same token counts against the same cap.
    expect((await open(harness, '/me/events', { 'x-inbox-token': flooder.token })).status).toBe(429);

    // A well-behaved client: its own stream opens and its mail arrives.
    const good = await open(harness, `/inboxes/${neighbour.id}/stream`, { 'x-inbox-token': neighbour.token });
    expect(good.status).toBe(200);
    expect((await sendRaw(harness.server.smtpPort, 'app@example.test', [neighbour.address], rawMessage({ to: neighbour.address, subject: 'still served' }))).code).toBe(250);
    expect((await harness.listAll(neighbour)).map((m) => m.subject)).toEqual(['still served']);

    const rssGrowth = (process.memoryUsage().rss - rssBefore) / MB;
    expect(rssGrowth, 'RSS growth of 21 open streams and 31 refusals').toBeLessThan(64);
    const socketsOpen = sockets() - socketsBefore;
    // 21 streams: two ends each (plus idle keep-alive connections of the refused requests, which time out).
    expect(socketsOpen, 'sockets while 21 streams are open').toBeGreaterThanOrEqual(42);
    for (const s of [...streams, good]) s.close();
    // Every slot comes back: the flooder may open a stream again, and the handles return to about where they were.
    await expect.poll(async () => {
      const again = await open(harness, `/inboxes/${flooder.id}/stream`, { 'x-inbox-token': flooder.token });
      again.close();
      return again.status;
    }, { timeout: 5000 }).toBe(200);
    // Once keep-alive connections have timed out (5 s), nothing of the flood is left open.
    await expect.poll(() => sockets() - socketsBefore, { timeout: 15_000 }).toBeLessThanOrEqual(POOL_SLACK);
    figure('exhaustion', `20 streams from one token, then 30 refused with 429 limit_reached; RSS +${rssGrowth.toFixed(1)} MB; sockets +${socketsOpen} while open, back to ${sockets()} (from ${socketsBefore}) once closed`);
  });
});

test.describe('streams from one address with many tokens', () => {
  test.use({ harnessOptions: { maxStreamsPerCredential: 20, maxStreamsPerAddress: 10 } });

  test('stop at the per-address cap with a 429 naming it', async ({ harness }) => {
    const inboxes = await Promise.all(Array.from({ length: 11 }, () => harness.createInbox()));
    const streams = [];
    for (const inbox of inboxes.slice(0, 10)) streams.push(await open(harness, `/inboxes/${inbox.id}/stream`, { 'x-inbox-token': inbox.token }));
    expect(streams.map((s) => s.status)).toEqual(Array(10).fill(200));
    const last = inboxes[10]!;
    const refused = await open(harness, `/inboxes/${last.id}/stream`, { 'x-inbox-token': last.token });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body!).error.message).toContain('--max-streams-per-address');
    for (const s of streams) s.close();
  });
});

test.describe('a burst of guest inboxes from one address', () => {
  test.use({ harnessOptions: { maxGuestInboxesPerAddress: 20 } });

  test('80 creates at once are held to the cap of 20 exactly: the count and the insert are one transaction', async ({ harness }) => {
    const answers = await Promise.all(Array.from({ length: 80 }, () => harness.call('/inboxes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })));
    expect(answers.map((a) => a.status).filter((s) => s === 200)).toHaveLength(20);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(60);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect((r.json as { error: { code: string; message: string } }).error).toMatchObject({ code: 'limit_reached', message: expect.stringContaining('the cap is 20 (guest inboxes per client address') });
    }
  });
});

test.describe('a guest inbox flood from one address', () => {
  const KEY = `tm_${'k'.repeat(32)}`;
  test.use({ harnessOptions: { maxGuestInboxesPerAddress: 50, apiKeys: [KEY] } });

  test('stops at the per-address cap with a 429 naming it; an API-key user still creates inboxes; deleting one frees a slot', async ({ harness }) => {
    test.setTimeout(60_000);
    const rssBefore = process.memoryUsage().rss;
    const created = [];
    for (let i = 0; i < 50; i++) created.push(await harness.createInbox());
    const refused = await harness.call('/inboxes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(429);
    expect((refused.json as { error: { code: string; message: string } }).error).toMatchObject({ code: 'limit_reached', message: expect.stringContaining('--max-guest-inboxes-per-address') });
    // A guest's own inbox token does not lift the cap either.
    const withToken = await harness.call('/inboxes', { method: 'POST', headers: { 'content-type': 'application/json', 'x-inbox-token': created[0]!.token }, body: '{}' });
    expect(withToken.status).toBe(429);
    expect((await harness.createInbox({}, { authorization: `Bearer ${KEY}` })).address).toContain('@');
    const first = created[0]!;
    expect((await harness.call(`/inboxes/${first.id}`, { method: 'DELETE', headers: { 'x-inbox-token': first.token } })).status).toBe(200);
    expect((await harness.createInbox()).address).toContain('@');
    const rssGrowth = (process.memoryUsage().rss - rssBefore) / MB;
    expect(rssGrowth).toBeLessThan(64);
    figure('exhaustion', `50 guest inboxes from one address, the 51st refused with 429 limit_reached; RSS +${rssGrowth.toFixed(1)} MB`);
  });
});

test('an amplification email (one 10 KB image referenced 10,000 times) is stored within twice its size, quickly, and the service keeps serving', async ({ harness }) => {
  test.setTimeout(60_000);
  const [victim, neighbour] = [await harness.createInbox(), await harness.createInbox()];
  const { raw } = amplificationMail({ references: 10_000, imageBytes: 10 * 1024, to: victim.address });
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const smtp = await RawSmtp.connect(harness.server.smtpPort);
  try {
    await smtp.hello();
    await smtp.command('MAIL FROM:<amp@adversary.test>');
    expect((await smtp.command(`RCPT TO:<${victim.address}>`)).code).toBe(250);
    expect((await smtp.command('DATA')).code).toBe(354);
    smtp.write(dataOf(raw.toString('latin1')));
    expect((await smtp.reply()).code).toBe(250);
  } finally {
    smtp.end();
  }
  const seconds = (performance.now() - started) / 1000;
  expect(seconds).toBeLessThan(8);
  const [summary] = await harness.listAll(victim);
  const message = await harness.call(`/messages/${summary!.id}`, { headers: { 'x-inbox-token': victim.token } });
  const html = (message.json as { data: { html: string } }).data.html;
  expect(html.length).toBeLessThan(2 * raw.byteLength);
  const rssGrowth = (process.memoryUsage().rss - rssBefore) / MB;
  expect(rssGrowth, 'RSS growth of storing and reading the amplification email').toBeLessThan(200);
  expect((await sendRaw(harness.server.smtpPort, 'app@example.test', [neighbour.address], rawMessage({ to: neighbour.address, subject: 'after the flood' }))).code).toBe(250);
  expect((await harness.listAll(neighbour)).map((m) => m.subject)).toEqual(['after the flood']);
  figure('exhaustion', `amplification email of ${(raw.byteLength / 1024).toFixed(0)} KB: 250 in ${seconds.toFixed(1)} s, sanitized HTML ${(html.length / 1024).toFixed(0)} KB, RSS +${rssGrowth.toFixed(1)} MB`);
});

test.describe('mail past the stored-bytes cap of memory mode', () => {
  test.use({ harnessOptions: { maxMessageBytes: 256 * 1024, maxStoredBytes: 1024 * 1024 } });

  test('evicts the oldest mail of the largest inbox: the flooder pays, the neighbour keeps its mail', async ({ harness, storageBackend }) => {
    test.skip(storageBackend !== 'sqlite', 'the stored-bytes cap applies to the in-memory store only');
    test.setTimeout(60_000);
    const [flooder, neighbour] = [await harness.createInbox(), await harness.createInbox()];
    expect((await sendRaw(harness.server.smtpPort, 'app@example.test', [neighbour.address], rawMessage({ to: neighbour.address, subject: 'keep me' }))).code).toBe(250);
    for (let i = 1; i <= 12; i++) {
      const reply = await sendRaw(harness.server.smtpPort, 'flood@adversary.test', [flooder.address], rawMessage({ to: flooder.address, subject: `flood ${i}`, body: 'f'.repeat(200 * 1024) }));
      expect(reply.code).toBe(250);
    }
    const kept = await harness.listAll(flooder);
    const bytes = kept.reduce((sum, m) => sum + m.size, 0);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
    // The newest stay, the oldest went.
    expect(kept.map((m) => m.subject)).toContain('flood 12');
    expect(kept.map((m) => m.subject)).not.toContain('flood 1');
    expect((await harness.listAll(neighbour)).map((m) => m.subject)).toEqual(['keep me']);
    expect(harness.logs.some((l) => /stored bytes cap/.test(String(l.msg)))).toBe(true);
    figure('exhaustion', `12 × 200 KB into a 1 MiB in-memory store: ${kept.length} of the flooder's kept (${(bytes / 1024).toFixed(0)} KB), the neighbour's mail untouched`);
  });
});
