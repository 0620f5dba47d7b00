/**
 * Spam checks queued fairly in front of a real SpamAssassin daemon: a guest
 * keeping its whole share of checks (8) in flight never has more than the
 * scanner's children sent at once, and another caller's check is scored,
 * not timed out behind them. A counting relay sits between the service and
 * spamd to see how many scans reach spamd at once. The daemon is the one
 * `.ci/run` starts (INBOXKIT_TEST_SPAMD_URL); without it the test is skipped.
 */
import { connect, createServer } from 'node:net';
import type { Server } from 'node:net';
import { test, expect, sendRaw, startHarness } from '../adversarial/helpers.ts';

const SPAMD = process.env.INBOXKIT_TEST_SPAMD_URL;
const NO_SPAMD = 'no spam scanner: set INBOXKIT_TEST_SPAMD_URL to a running spamd (bash tests/support/spamd.sh start prints it; .ci/run does this)';
const KEY = 'tm_spamqueuespamqueuespamqueue01';

/** A relay to spamd on port 0 that counts the scans open through it at once (the most it saw, too). */
async function countingRelay(target: URL): Promise<{ url: string; most: () => number; close(): Promise<void> }> {
  let open = 0;
  let most = 0;
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    open++;
    most = Math.max(most, open);
    const upstream = connect({ host: target.hostname, port: Number(target.port), allowHalfOpen: true });
    client.pipe(upstream);
    upstream.pipe(client);
    let closed = 0;
    const done = () => {
      if (++closed === 2) open--;
    };
    client.on('close', done);
    upstream.on('close', done);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `spamd://127.0.0.1:${port}`, most: () => most, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test.skip(!SPAMD, NO_SPAMD);

test('a guest keeping its share of checks in flight sends spamd no more than its children at once, and a user\'s check is scored beside them, not timed out', async () => {
  test.setTimeout(180_000);
  const relay = await countingRelay(new URL(SPAMD!));
  // The test daemon runs 2 children (tests/support/spamd.sh); a stock spamd runs 5, the flag's default.
  const harness = await startHarness({ apiKeys: [KEY], spamCheck: relay.url, spamCheckConcurrency: 2, spamCheckTimeoutMs: 60_000 });
  try {
    const body = Array.from({ length: 200 }, (_, i) => `Line ${i}: your order has shipped and will arrive on Friday; track it at https://shop.example/track/${i}`).join('\r\n');
    const guest = await harness.createInbox();
    const userHeaders = { authorization: `Bearer ${KEY}` };
    const user = await harness.createInbox({}, userHeaders);
    for (const inbox of [guest, user]) {
      const reply = await sendRaw(harness.server.smtpPort, 'orders@shop.example', [inbox.address], `From: orders@shop.example\r\nTo: ${inbox.address}\r\nSubject: Your order\r\n\r\n${body}\r\n`);
      expect(reply.code).toBe(250);
    }
    const idOf = async (inbox: { id: string }, headers: Record<string, string>) =>
      ((await harness.call(`/inboxes/${inbox.id}/messages`, { headers })).json as { data: { items: Array<{ id: string }> } }).data.items[0]!.id;
    const guestHeaders = { 'x-inbox-token': guest.token };
    const [guestMessage, userMessage] = [await idOf(guest, guestHeaders), await idOf(user, userHeaders)];
    const check = (id: string, headers: Record<string, string>) => harness.call(`/messages/${id}/spam-check`, { method: 'POST', headers });

    const guestChecks = Array.from({ length: 8 }, () => check(guestMessage, guestHeaders));
    const userCheck = check(userMessage, userHeaders);
    const answers = await Promise.all([...guestChecks, userCheck]);
    expect(answers.map((a) => `${a.status} ${a.status === 200 ? "" : JSON.stringify(a.json)}`)).toEqual(Array(9).fill("200 "));
    expect((await userCheck).json).toMatchObject({ data: { scanner: 'spamassassin', spam: false } });
    expect(relay.most()).toBe(2);
  } finally {
    await harness.close();
    await relay.close();
  }
});
