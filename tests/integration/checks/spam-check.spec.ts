/**
 * The spam check (issue 30) against a real SpamAssassin daemon: the service
 * sends the stored raw message to spamd and answers its score and rules, with
 * the rules that fire only for a local delivery set apart and not counted.
 * The daemon is the one `.ci/run` starts (tests/support/spamd.sh), found through
 * INBOXKIT_TEST_SPAMD_URL; without it these tests are skipped, saying so.
 */
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { test, expect } from '../client/fixtures.ts';
import { SpamCheckUnavailableError, createClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';

const SPAMD = process.env.INBOXKIT_TEST_SPAMD_URL;
const NO_SPAMD = 'no spam scanner: set INBOXKIT_TEST_SPAMD_URL to a running spamd (bash tests/support/spamd.sh start prints it; .ci/run does this)';

const SPAMMY_HTML = `<html><body><font size=7 color=red>CONGRATULATIONS!!! YOU HAVE WON $1,000,000 USD!!!</font>
<p>100% FREE! No risk! Act now! Limited time offer! Click here to claim your prize: <a href="http://192.168.1.1/claim">CLAIM NOW</a></p>
<p>Viagra, Cialis, cheap meds, lose weight fast, MAKE MONEY FAST, work from home, be your own boss.</p>
<p>Send your bank account details and social security number to receive the wire transfer of the funds.</p></body></html>`;

test.describe('spam check with spamd', () => {
  test.skip(!SPAMD, NO_SPAMD);
  test.use({ serverOptions: { spamCheck: SPAMD ?? null } });

  test('a plain transactional email passes, and no local-only rule counts in its score', async ({ guest, send }) => {
    const inbox = await guest.inboxes.create();
    await send({ from: 'Acme <orders@acme.example>', to: inbox.address, subject: 'Your order 1042 has shipped', text: 'Hello Ada,\n\nyour order 1042 has shipped and should arrive on Friday.\n\nThe Acme team' });
    const message = await inbox.waitForMessage({ subject: /order 1042/ }, { timeout: 10_000 });
    // #region result
    const result = await message.spamCheck();
    expect(result).toMatchObject({ scanner: 'spamassassin', threshold: 5, spam: false });
    expect(result.score).toBeLessThan(result.threshold);
    const counted = result.rules.filter((r) => !r.localOnly).reduce((sum, r) => sum + r.score, 0);
    expect(result.score).toBeCloseTo(counted, 3);
    // Mail straight from a local app over loopback: no relay, no Received header.
    expect(result.rules.filter((r) => r.localOnly).map((r) => r.name)).toEqual(expect.arrayContaining(['NO_RELAYS']));
    // #endregion
    for (const rule of result.rules) expect(rule.description, rule.name).not.toBe('');
  });

  test('a classic spammy email fails, its rules named with their scores and descriptions', async ({ guest, send }) => {
    const inbox = await guest.inboxes.create();
    await send({ from: 'WINNER <winner@lottery-prize.example>', to: inbox.address, subject: 'YOU WON $1,000,000 !!! CLAIM NOW', html: SPAMMY_HTML });
    const message = await inbox.waitForMessage({ subject: /CLAIM NOW/ }, { timeout: 10_000 });
    const result = await message.spamCheck();
    expect(result.spam).toBe(true);
    expect(result.score).toBeGreaterThanOrEqual(result.threshold);
    const names = result.rules.filter((r) => !r.localOnly).map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['DRUGS_ERECTILE', 'US_DOLLARS_3']));
    expect(result.rules.find((r) => r.name === 'DRUGS_ERECTILE')).toMatchObject({ score: expect.any(Number), description: 'Refers to an erectile drug', localOnly: false });
    // Highest score first.
    expect(result.rules.map((r) => r.score)).toEqual([...result.rules.map((r) => r.score)].sort((a, b) => b - a));
  });
});

test.describe('spam check failures', () => {
  test('a service without a scanner answers with an error naming the flag and how to install one', async ({ guest, send }) => {
    const inbox = await guest.inboxes.create();
    await send({ to: inbox.address, subject: 'No scanner', text: 'hi' });
    const message = await inbox.waitForMessage({ subject: 'No scanner' }, { timeout: 10_000 });
    const error = await message.spamCheck().then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(SpamCheckUnavailableError);
    expect((error as SpamCheckUnavailableError).reason).toBe('not_configured');
    expect((error as Error).message).toMatch(/no spam scanner configured \(--spam-check\)\. Install SpamAssassin \(Debian\/Ubuntu: apt-get install spamd/);
  });

  for (const [what, scanner, expected] of [
    ['down', 'refused', /cannot reach spamd at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/],
    ['slow', 'silent', /spamd at 127\.0\.0\.1:\d+ did not answer within 300 ms/],
  ] as const) {
    test(`a scanner that is ${what} fails the check within the timeout, with the cause`, async () => {
      // A port that refuses (closed again at once), or a listener that accepts and never answers.
      const sockets = new Set<Socket>();
      const listener: Server = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const port = (listener.address() as { port: number }).port;
      if (scanner === 'refused') await new Promise((resolve) => listener.close(resolve));
      const server = await startServer({ spamCheck: `spamd://127.0.0.1:${port}`, spamCheckTimeoutMs: 300 });
      const client = createClient({ baseUrl: server.url });
      try {
        const inbox = await client.inboxes.create();
        const { default: nodemailer } = await import('nodemailer');
        const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true });
        await transport.sendMail({ from: 'a@acme.example', to: inbox.address, subject: 'Scan me', text: 'hi' });
        const message = await inbox.waitForMessage({ subject: 'Scan me' }, { timeout: 10_000 });
        const started = Date.now();
        const error = await message.spamCheck().then(() => null, (e: unknown) => e);
        expect(Date.now() - started).toBeLessThan(5000);
        expect(error).toBeInstanceOf(SpamCheckUnavailableError);
        expect((error as SpamCheckUnavailableError).reason).toBe('failed');
        expect((error as Error).message).toMatch(expected);
      } finally {
        await client.close();
        await server.close();
        if (scanner === 'silent') {
          for (const socket of sockets) socket.destroy();
          await new Promise((resolve) => listener.close(resolve));
        }
      }
    });
  }

  test('a scanner URL the service cannot use is refused at start, naming the schemes it knows', async () => {
    const error = await startServer({ spamCheck: 'smtp://127.0.0.1:783' }).then(() => null, (e: unknown) => e);
    expect((error as Error).message).toMatch(/option spamCheck: "smtp:\/\/127\.0\.0\.1:783" has the scheme smtp: — use spamd:\/\/host:port/);
  });
});

test.describe('spam check with Rspamd', () => {
  const RSPAMD = process.env.INBOXKIT_TEST_RSPAMD_URL;
  test.skip(!RSPAMD, 'no Rspamd: set INBOXKIT_TEST_RSPAMD_URL to a running Rspamd normal worker (rspamd://127.0.0.1:11333); CI runs SpamAssassin only');
  test.use({ serverOptions: { spamCheck: RSPAMD ?? null } });

  test('Rspamd scores through its HTTP API, its symbols described and the local-only ones set apart', async ({ guest, send }) => {
    const inbox = await guest.inboxes.create();
    await send({ from: 'WINNER <winner@lottery-prize.example>', to: inbox.address, subject: 'YOU WON $1,000,000 !!! CLAIM NOW', html: SPAMMY_HTML });
    const message = await inbox.waitForMessage({ subject: /CLAIM NOW/ }, { timeout: 10_000 });
    const result = await message.spamCheck();
    expect(result.scanner).toBe('rspamd');
    expect(result.rules.find((r) => r.name === 'SUBJ_ALL_CAPS')).toMatchObject({ description: 'All capital letters in subject', localOnly: false });
    expect(result.rules.find((r) => r.name === 'RCVD_COUNT_ZERO')?.localOnly).toBe(true);
    expect(result.score).toBeCloseTo(result.rules.filter((r) => !r.localOnly).reduce((s, r) => s + r.score, 0), 3);
  });
});
