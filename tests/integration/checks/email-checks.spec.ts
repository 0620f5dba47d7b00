/**
 * The email-check matchers through the fixtures (issue 30): a real inbox
 * service, real SMTP, the real mailauth, the real spamd (when .ci/run started
 * one: INBOXKIT_TEST_SPAMD_URL) and a real HTTP app that honours one-click
 * unsubscribe. Each check attaches a table to the report.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import { test as base, expect } from '../../../src/playwright/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

const SPAMD = process.env.INBOXKIT_TEST_SPAMD_URL ?? null;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const DKIM = { domainName: 'acme.example', keySelector: 'mail', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
const DNS = {
  'mail._domainkey.acme.example': `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
  'acme.example': 'v=spf1 ip4:127.0.0.1 -all',
  '_dmarc.acme.example': 'v=DMARC1; p=reject',
};

interface App {
  url: string;
  /** Bodies of the POSTs to /unsubscribe, by token. */
  unsubscribed: Map<string, string>;
}

const test = base.extend<{ app: App; send: (mail: SendMailOptions) => Promise<void> }, { service: RunningServer }>({
  service: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const service = await startServer({ spamCheck: SPAMD });
      await use(service);
      await service.close();
    },
    { scope: 'worker' },
  ],
  inboxkit: [async ({ service }, use) => use({ baseUrl: service.url, dns: DNS }), { scope: 'worker' }],
  // eslint-disable-next-line no-empty-pattern
  app: async ({}, use) => {
    const state: App = { url: '', unsubscribed: new Map() };
    const server: Server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.method === 'POST' && url.pathname === '/unsubscribe' && body === 'List-Unsubscribe=One-Click') {
          state.unsubscribed.set(url.searchParams.get('token') ?? '', body);
          res.writeHead(200).end('unsubscribed');
        } else res.writeHead(url.pathname === '/' ? 200 : 404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await use(state);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  },
  // The app is the test's origin: the link check and unsubscribe() reach it.
  baseURL: async ({ app }, use) => use(app.url),
  send: async ({ service }, use) => {
    const transport = nodemailer.createTransport({ host: service.smtpHost, port: service.smtpPort, secure: false, ignoreTLS: true, dkim: DKIM });
    await use(async (mail) => void (await transport.sendMail({ from: 'Acme <hello@acme.example>', envelope: { from: 'bounce@acme.example', to: mail.to as string }, ...mail })));
    transport.close();
  },
});


function newsletter(app: App, to: string, oneClick: boolean): SendMailOptions {
  return {
    to,
    subject: 'Acme news for November',
    text: `News.\n\nUnsubscribe: ${app.url}/unsubscribe?token=t-1`,
    html: `<p>News.</p><p><a href="https://acme.example/news">Read more</a> · <a href="https://acme.example/unsubscribe?token=t-1">Unsubscribe</a></p>`,
    list: { unsubscribe: { url: `${app.url}/unsubscribe?token=t-1`, comment: 'Unsubscribe' } },
    headers: oneClick ? { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {},
  };
}

test.describe('email-check matchers', () => {
  test('a DKIM-signed message passes toBeAuthenticated with the config\'s test DNS', async ({ inbox, send }) => {
    await send({ to: inbox.address, subject: 'Signed receipt', text: 'Thanks for your order.' });
    const message = await inbox.waitForMessage({ subject: 'Signed receipt' });
    await expect(message).toBeAuthenticated();
    expect(test.info().attachments.map((a) => a.name)).toContain('authentication — Signed receipt');
  });

  test('a failed authentication names what to fix; a call\'s dns adds to the config\'s', async ({ inbox, send }) => {
    await send({ to: inbox.address, subject: 'Wrong key', text: 'hi' });
    const message = await inbox.waitForMessage({ subject: 'Wrong key' });
    const { publicKey: other } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const wrong = `v=DKIM1; k=rsa; p=${other.export({ type: 'spki', format: 'der' }).toString('base64')}`;
    const failure = await expect(message).toBeAuthenticated({ dns: { 'mail._domainkey.acme.example': wrong } }).then(() => null, (e: unknown) => e as Error);
    expect(failure?.message).toMatch(/DKIM d=acme\.example s=mail: (fail|neutral), expected pass — bad signature: the key at mail\._domainkey\.acme\.example does not verify/);
    // SPF still passes, so DMARC does too: expecting only that passes.
    await expect(message).toBeAuthenticated({ dns: { 'mail._domainkey.acme.example': wrong }, dkim: false });
  });

  test('a call\'s dns replaces the config\'s record of the same name, whatever its case and trailing dot', async ({ inbox, send }) => {
    await send({ to: inbox.address, subject: 'Moved sender', text: 'hi' });
    const message = await inbox.waitForMessage({ subject: 'Moved sender' });
    expect((await message.authentication()).spf.result).toBe('pass');
    // One SPF record, the call's: merged with the config's, two records would be a permerror.
    const report = await message.authentication({ dns: { 'ACME.example.': 'v=spf1 -all' } });
    expect(report.spf.result).toBe('fail');
  });

  test('a newsletter without one-click unsubscribe fails the content checks with the rule and its fix', async ({ inbox, send, app }) => {
    await send(newsletter(app, inbox.address, false));
    const message = await inbox.waitForMessage({ subject: /news/ });
    const failure = await expect(message).toPassContentChecks().then(() => null, (e: unknown) => e as Error);
    expect(failure?.message).toContain('one-click-unsubscribe (error) at header List-Unsubscribe-Post: Bulk mail without List-Unsubscribe-Post: List-Unsubscribe=One-Click. Fix: Add `List-Unsubscribe-Post');
    await expect(message).toPassContentChecks({ ignore: ['one-click-unsubscribe', 'plain-http-link'] });
    await expect(expect(message).toPassContentChecks({ ignore: ['one-click'] })).rejects.toThrow(/unknown rule id "one-click" in ignore; the rules are list-unsubscribe, .*one-click-unsubscribe/);
  });

  test('unsubscribe() performs the RFC 8058 one-click POST through the test\'s request context', async ({ inbox, send, app }) => {
    await send(newsletter(app, inbox.address, true));
    const message = await inbox.waitForMessage({ subject: /news/ });
    expect(await message.unsubscribe()).toEqual({ url: `${app.url}/unsubscribe?token=t-1`, status: 200 });
    expect(app.unsubscribed.get('t-1')).toBe('List-Unsubscribe=One-Click');
  });

  test('toPassEmailChecks runs every family, attaches a table for each, and names the failing ones', async ({ inbox, send }) => {
    await send({ to: inbox.address, subject: 'Receipt 7', text: 'Thanks.', html: '<p>Thanks.</p><img src="https://acme.example/logo.png">' });
    const message = await inbox.waitForMessage({ subject: 'Receipt 7' });
    const failure = await expect(message).toPassEmailChecks({ compatibility: { clients: ['gmail'] } }).then(() => null, (e: unknown) => e as Error);
    expect(failure?.message).toMatch(/content\s+FAIL \(1\)/);
    expect(failure?.message).toMatch(/authentication\s+pass/);
    expect(failure?.message).toContain('img-alt (warning) at html line 1: <img src="https://acme.example/logo.png">');
    const names = test.info().attachments.map((a) => a.name);
    for (const family of ['content', 'spam', 'authentication', 'links', 'compatibility']) expect(names).toContain(`${family} — Receipt 7`);
    // #region options
    await expect(message).toPassEmailChecks({ content: { ignore: ['img-alt'] }, links: false });
    // #endregion
  });

  test('toPassSpamCheck scores with the real scanner, local-only rules apart', async ({ inbox, send }) => {
    test.skip(!SPAMD, 'no spam scanner: set INBOXKIT_TEST_SPAMD_URL to a running spamd (.ci/run starts one)');
    await send({ to: inbox.address, subject: 'Receipt 8', text: 'Thanks for your order 8.' });
    const message = await inbox.waitForMessage({ subject: 'Receipt 8' });
    await expect(message).toPassSpamCheck({ maxScore: 3 });
    const table = test.info().attachments.find((a) => a.name === 'spam — Receipt 8')?.body?.toString() ?? '';
    expect(table).toMatch(/^spamassassin: score .* \(threshold 5;/);
    expect(table).toContain('local-only, not counted');
  });
});
