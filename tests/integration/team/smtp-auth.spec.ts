/**
 * STARTTLS with a self-signed certificate made at start, and SMTP AUTH with
 * an operator's API key, only after TLS (issue 40), over real SMTP
 * conversations: plain text AUTH before STARTTLS is refused, a wrong password
 * is refused without saying which part was wrong, and with AUTH required no
 * mail is taken from a client that did not authenticate.
 */
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { RawSmtp, expect, test } from '../adversarial/helpers.ts';

const KEY = 'tm_ci-runner-key-0123456789abcdef';

test.use({ harnessOptions: { smtpTlsSelfSigned: true, smtpAuth: 'required', apiKeys: [KEY], domains: ['mail.team.test'] } });

const transport = (port: number, auth?: { user: string; pass: string }) =>
  nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false }, ...(auth ? { auth } : {}) });

test('plain text AUTH before STARTTLS is refused, and so is mail from a client that did not authenticate', async ({ harness }) => {
  const smtp = await RawSmtp.connect(harness.server.smtpPort);
  const ehlo = await smtp.hello();
  expect(ehlo.text).toContain('STARTTLS');
  const auth = await smtp.command(`AUTH PLAIN ${Buffer.from(`\0ci\0${KEY}`).toString('base64')}`);
  expect(auth.code).toBe(538);
  expect(auth.text).toMatch(/STARTTLS/);
  const mail = await smtp.command('MAIL FROM:<app@example.test>');
  expect(mail.code).toBe(530);
  smtp.end();
});

test('STARTTLS presents the certificate made at start, for the first mail domain', async ({ harness }) => {
  const smtp = await RawSmtp.connect(harness.server.smtpPort);
  await smtp.hello();
  expect((await smtp.command('STARTTLS')).code).toBe(220);
  smtp.socket.removeAllListeners('data');
  const secure = tls.connect({ socket: smtp.socket, rejectUnauthorized: false, servername: 'mail.team.test' });
  await new Promise<void>((resolve, reject) => secure.once('secureConnect', () => resolve()).once('error', reject));
  const cert = secure.getPeerCertificate();
  expect(cert.subject.CN).toBe('mail.team.test');
  expect(cert.issuer.CN).toBe('mail.team.test');
  expect(cert.subjectaltname).toContain('DNS:mail.team.test');
  secure.destroy();
});

test('with TLS and the API key as password the mail is taken; a wrong password or an unknown key gets the same 535', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const good = transport(harness.server.smtpPort, { user: 'ci-runner-1', pass: KEY });
  const sent = await good.sendMail({ from: 'app@example.test', to: inbox.address, subject: 'authenticated', text: 'hello' });
  expect(sent.response).toMatch(/^250 /);
  expect((await harness.listAll(inbox)).map((m) => m.subject)).toEqual(['authenticated']);

  const replies: string[] = [];
  for (const pass of [`${KEY}x`, 'tm_not-a-key-of-this-service-000', 'hunter2']) {
    const bad = transport(harness.server.smtpPort, { user: 'ci-runner-1', pass });
    const error = (await bad.sendMail({ from: 'app@example.test', to: inbox.address, subject: 'no', text: 'no' }).catch((e: unknown) => e)) as { responseCode?: number; response?: string };
    expect(error.responseCode).toBe(535);
    replies.push(String(error.response));
  }
  expect(new Set(replies)).toEqual(new Set(['535 5.7.8 Authentication credentials invalid']));
});

test('AUTH needs TLS: asking for it without a certificate is refused at start, naming what to give', async () => {
  const { resolveConfig } = await import('../../../src/server/index.ts');
  expect(() => resolveConfig({ smtpAuth: 'required' })).toThrow(/--smtp-tls-key and --smtp-tls-cert\) or smtpTlsSelfSigned/);
});

test.describe('with 2 SMTP connections per client address', () => {
  test.use({ harnessOptions: { smtpTlsSelfSigned: true, smtpAuth: 'required', apiKeys: [KEY], domains: ['mail.team.test'], smtpMaxConnectionsPerAddress: 2 } });

  test('a session that ended after STARTTLS gives its place back: five in a row are all served', async ({ harness }) => {
    const inbox = await harness.createInbox();
    for (let i = 0; i < 5; i++) {
      const sent = await transport(harness.server.smtpPort, { user: 'ci', pass: KEY }).sendMail({ from: 'app@example.test', to: inbox.address, subject: `tls ${i}`, text: 'x' });
      expect(sent.response).toMatch(/^250 /);
    }
    expect(await harness.listAll(inbox)).toHaveLength(5);
  });
});

/** STARTTLS on a raw conversation, then the conversation over TLS (EHLO again, as RFC 3207 asks). */
async function overTls(port: number, localAddress?: string, proxyFrom?: string): Promise<{ before: string; after: string; smtp: RawSmtp }> {
  const plain = await RawSmtp.connect(port, '127.0.0.1', { ...(localAddress ? { localAddress } : {}), ...(proxyFrom ? { proxyFrom } : {}) });
  const before = (await plain.hello()).text;
  expect((await plain.command('STARTTLS')).code).toBe(220);
  plain.socket.removeAllListeners('data');
  const secure = tls.connect({ socket: plain.socket, rejectUnauthorized: false, servername: 'mail.team.test' });
  await new Promise<void>((resolve, reject) => secure.once('secureConnect', () => resolve()).once('error', reject));
  const smtp = RawSmtp.over(secure);
  const after = (await smtp.command('EHLO adversary.test')).text;
  return { before, after, smtp };
}

const plainAuth = (pass: string) => `AUTH PLAIN ${Buffer.from(`\0ci\0${pass}`).toString('base64')}`;

test('EHLO before STARTTLS offers STARTTLS and not AUTH; EHLO over TLS offers AUTH PLAIN LOGIN', async ({ harness }) => {
  const { before, after, smtp } = await overTls(harness.server.smtpPort);
  expect(before).toContain('STARTTLS');
  expect(before).not.toMatch(/\bAUTH\b/);
  expect(after).toMatch(/^250-AUTH PLAIN LOGIN$/m);
  expect(after).not.toContain('STARTTLS');
  expect((await smtp.command(plainAuth(KEY))).code).toBe(235);
  smtp.end();
});

test.describe('with the per-address AUTH delay off', () => {
  test.use({ harnessOptions: { smtpTlsSelfSigned: true, smtpAuth: 'required', apiKeys: [KEY], domains: ['mail.team.test'], smtpAuthFailureDelayMs: 0 } });

  test('the third wrong password on one connection is answered 421 and the connection is closed by the service', async ({ harness }) => {
    const { smtp } = await overTls(harness.server.smtpPort);
    expect((await smtp.command(plainAuth('tm_wrong-guess-0000000001'))).code).toBe(535);
    expect((await smtp.command(plainAuth('tm_wrong-guess-0000000002'))).code).toBe(535);
    const third = await smtp.command(plainAuth('tm_wrong-guess-0000000003'));
    expect(third.code).toBe(421);
    expect(third.text).toMatch(/3 failed AUTH attempts are the most one connection may make \(inboxkit serve --smtp-auth-max-failures\)/);
    await smtp.closed;
    // A new connection may try again (the address is charged only through the delay, off here).
    const again = await overTls(harness.server.smtpPort);
    expect((await again.smtp.command(plainAuth(KEY))).code).toBe(235);
    again.smtp.end();
  });
});

test.describe('with a per-address AUTH delay of 20 s after a failure', () => {
  test.use({ harnessOptions: { smtpTlsSelfSigned: true, smtpAuth: 'required', apiKeys: [KEY], domains: ['mail.team.test'], smtpAuthFailureDelayMs: 20_000 } });

  test('failures are charged to the client address across connections: its next AUTH waits its turn, one queued past 30 s is told 421 at once, another address is not charged', async ({ harness }) => {
    const port = harness.server.smtpPort;
    const first = await overTls(port);
    expect((await first.smtp.command(plainAuth('tm_wrong-guess-0000000001'))).code).toBe(535);
    // The next AUTH of 127.0.0.1, on another connection, takes the turn 20 s after the failure: it waits.
    const second = await overTls(port);
    const waiting = second.smtp.command(plainAuth(KEY));
    // The one after it would wait 40 s, past the 30 s ceiling: refused now, and the connection closed.
    const third = await overTls(port);
    const refused = await third.smtp.command(plainAuth(KEY));
    expect(refused.code).toBe(421);
    expect(refused.text).toMatch(/Too many failed AUTH attempts from your address 127\.0\.0\.1 \(1 in 600 s\): try again in \d+ s/);
    await third.smtp.closed;
    // Another client address has no failures: answered at once.
    const other = await overTls(port, '127.0.0.2');
    expect((await other.smtp.command(plainAuth(KEY))).code).toBe(235);
    other.smtp.end();
    void waiting.catch(() => undefined);
    second.smtp.end();
    first.smtp.end();
  });
});

test.describe('behind a balancer speaking the PROXY protocol, with a per-address AUTH delay of 20 s', () => {
  test.use({ harnessOptions: { smtpTlsSelfSigned: true, smtpAuth: 'required', apiKeys: [KEY], domains: ['mail.team.test'], smtpAuthFailureDelayMs: 20_000, smtpProxy: true } });

  test('failures are charged to the client address of the PROXY header, never the balancer\'s: another client behind it is answered at once', async ({ harness }) => {
    const port = harness.server.smtpPort;
    const guesser = await overTls(port, undefined, '198.51.100.7');
    expect((await guesser.smtp.command(plainAuth('tm_wrong-guess-0000000001'))).code).toBe(535);
    const waiting = await overTls(port, undefined, '198.51.100.7');
    const pending = waiting.smtp.command(plainAuth(KEY));
    const refused = await overTls(port, undefined, '198.51.100.7');
    const reply = await refused.smtp.command(plainAuth(KEY));
    expect(reply.code).toBe(421);
    expect(reply.text).toContain('Too many failed AUTH attempts from your address 198.51.100.7');
    // Another client of the same balancer (the same peer address, 127.0.0.1) is not charged.
    const other = await overTls(port, undefined, '198.51.100.8');
    expect((await other.smtp.command(plainAuth(KEY))).code).toBe(235);
    for (const c of [guesser, waiting, other]) c.smtp.end();
    void pending.catch(() => undefined);
  });
});
