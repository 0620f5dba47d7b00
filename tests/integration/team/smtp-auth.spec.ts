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
