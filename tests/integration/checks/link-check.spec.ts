/**
 * The link check through the fixtures, in-process: a real inbox service, real
 * SMTP, and real HTTP servers for the app and for a host that must never be
 * contacted, each counting the requests it gets.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { test as base, expect } from '../../../src/playwright/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

interface CountingServer {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  /** What each path answers (a test may add some); any other path answers 404. */
  routes: Record<string, { status: number; location?: string }>;
}

async function countingServer(routes: Record<string, { status: number; location?: string }>): Promise<CountingServer & { server: Server }> {
  const state: CountingServer = { url: '', requests: [], routes };
  const server = createServer((req, res) => {
    state.requests.push(req.url ?? '');
    const route = state.routes[(req.url ?? '').split('?')[0] ?? ''] ?? { status: 404 };
    res.writeHead(route.status, { 'content-type': 'text/plain', ...(route.location ? { location: route.location } : {}) });
    res.end(String(route.status));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, { server });
}

const test = base.extend<{ app: CountingServer; elsewhere: CountingServer; send: (html: string) => Promise<void> }, { service: RunningServer }>({
  service: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const service = await startServer({});
      await use(service);
      await service.close();
    },
    { scope: 'worker' },
  ],
  inboxkit: [async ({ service }, use) => use({ baseUrl: service.url }), { scope: 'worker' }],
  // eslint-disable-next-line no-empty-pattern
  app: async ({}, use) => {
    const app = await countingServer({
      '/ok': { status: 200 },
      '/from-tracker': { status: 200 },
      '/logo.png': { status: 200 },
      '/moved': { status: 302, location: '/fail' },
      '/fail': { status: 500 },
      '/loop': { status: 302, location: '/loop' },
    });
    await use(app);
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
  },
  // eslint-disable-next-line no-empty-pattern
  elsewhere: async ({}, use) => {
    const other = await countingServer({ '/page': { status: 200 }, '/click': { status: 302, location: '/page' } });
    await use(other);
    await new Promise<void>((resolve) => other.server.close(() => resolve()));
  },
  baseURL: async ({ app }, use) => use(app.url),
  send: async ({ service, inbox }, use) => {
    await use(async (html) => {
      const transport = nodemailer.createTransport({ host: service.smtpHost, port: service.smtpPort, secure: false, ignoreTLS: true });
      try {
        await transport.sendMail({ from: 'app@example.test', to: inbox.address, subject: 'Links', html });
      } finally {
        transport.close();
      }
    });
  },
});

/** The same host and port as `elsewhere`, under another name: another origin, which the check must not contact. */
const otherOrigin = (server: CountingServer) => server.url.replace('127.0.0.1', 'localhost');

test('a link that 404s, one that redirects to a 500 and a redirect loop are broken; the working ones pass', async ({ inbox, app, send }) => {
  await send(
    `<p><a href="${app.url}/ok">Open your account</a> <a href="${app.url}/missing">Read the guide</a> <a href="${app.url}/moved">Billing</a>` +
      ` <a href="${app.url}/loop">Settings</a> <a href="mailto:help@acme.example">Help</a> <img src="${app.url}/logo.png" alt="Acme"></p>`,
  );
  const message = await inbox.waitForMessage({ subject: 'Links' });

  const report = await message.checkLinks();

  const byUrl = Object.fromEntries(report.links.map((l) => [l.url, l]));
  expect(byUrl[`${app.url}/ok`]).toMatchObject({ result: 'ok', status: 200, text: 'Open your account' });
  expect(byUrl[`${app.url}/missing`]).toMatchObject({ result: 'broken', status: 404, text: 'Read the guide' });
  expect(byUrl[`${app.url}/moved`]).toMatchObject({ result: 'broken', status: 500, redirects: [`${app.url}/fail`] });
  expect(byUrl[`${app.url}/loop`]).toMatchObject({ result: 'broken', error: expect.stringContaining('redirect loop') });
  expect(byUrl[`${app.url}/logo.png`]).toMatchObject({ kind: 'image', result: 'ok', text: 'Acme' });
  expect(report.broken.map((l) => l.url).sort()).toEqual([`${app.url}/loop`, `${app.url}/missing`, `${app.url}/moved`]);
  // /moved and /fail once each: redirects are followed one hop at a time.
  expect(app.requests.filter((p) => p === '/moved' || p === '/fail')).toEqual(['/moved', '/fail']);

  const error = await expect(message).toHaveWorkingLinks().then(() => null, (e: unknown) => e as Error);
  expect(error?.message).toContain('3 of 5 broken');
  expect(error?.message).toMatch(/✗ link "Read the guide" http:\/\/127\.0\.0\.1:\d+\/missing: 404/);
  expect(error?.message).toMatch(/✗ link "Billing" http:\/\/127\.0\.0\.1:\d+\/moved → http:\/\/127\.0\.0\.1:\d+\/fail: 500/);
  const attachment = test.info().attachments.find((a) => a.name === 'link check — Links');
  expect(attachment?.body?.toString()).toContain('3 broken');
});

test('a link to another host is skipped and never requested, unless allowed', async ({ inbox, app, elsewhere, send }) => {
  const foreign = `${otherOrigin(elsewhere)}/page`;
  await send(`<a href="${app.url}/ok">Home</a> <a href="${foreign}">Partner offer</a>`);
  const message = await inbox.waitForMessage({ subject: 'Links' });

  await expect(message).toHaveWorkingLinks();
  const report = await message.checkLinks();
  expect(report.skipped.map((l) => [l.url, l.note])).toEqual([[foreign, expect.stringContaining("is not the app's origin")]]);
  expect(elsewhere.requests).toEqual([]);

  const allowed = await message.checkLinks({ allow: [new URL(foreign).host] });
  expect(allowed.skipped).toEqual([]);
  expect(elsewhere.requests).toEqual(['/page']);
});

test('a tracking-wrapped link is checked at its target, and the tracker is never contacted', async ({ inbox, app, elsewhere, send }) => {
  const tracker = `${otherOrigin(elsewhere)}/click?url=${encodeURIComponent(`${app.url}/from-tracker`)}&uid=42`;
  await send(`<a href="${tracker}">See what is new</a>`);
  const message = await inbox.waitForMessage({ subject: 'Links' });

  const report = await message.checkLinks();

  expect(report.links).toEqual([expect.objectContaining({ url: `${app.url}/from-tracker`, originalUrl: tracker, result: 'ok', status: 200 })]);
  expect(app.requests).toEqual(['/from-tracker']);
  expect(elsewhere.requests).toEqual([]);
});

test('a redirect from the app to another host is not followed', async ({ inbox, app, elsewhere, send }) => {
  app.routes['/out'] = { status: 302, location: `${otherOrigin(elsewhere)}/page` };
  await send(`<a href="${app.url}/out">Partner</a>`);
  const message = await inbox.waitForMessage({ subject: 'Links' });

  const report = await message.checkLinks();

  expect(report.links[0]).toMatchObject({ result: 'ok', status: 302, redirects: [`${otherOrigin(elsewhere)}/page`], note: expect.stringContaining('not followed') });
  expect(app.requests).toEqual(['/out']);
  expect(elsewhere.requests).toEqual([]);
});

test('bad link-check options are refused with the option named', async ({ inbox, send, app }) => {
  await send(`<a href="${app.url}/ok">Home</a>`);
  const message = await inbox.waitForMessage({ subject: 'Links' });
  await expect(message.checkLinks({ maxRedirects: -1 })).rejects.toThrow(/maxRedirects must be an integer ≥ 0; got -1/);
  await expect(message.checkLinks({ concurrency: 0 })).rejects.toThrow(/concurrency must be an integer ≥ 1/);
});

test('excluded links (one-time links a GET would spend) are skipped and not requested', async ({ inbox, app, send }) => {
  await send(`<a href="${app.url}/ok">Home</a> <a href="${app.url}/confirm?token=once">Confirm</a>`);
  const message = await inbox.waitForMessage({ subject: 'Links' });

  const report = await message.checkLinks({ exclude: [/\/confirm\?/] });

  expect(report.skipped).toEqual([expect.objectContaining({ text: 'Confirm', note: expect.stringContaining('excluded') })]);
  expect(app.requests).toEqual(['/ok']);
});

test('toBeCompatibleWith fails listing what each named client lacks, and passes for clients that support everything used', async ({ inbox, service }) => {
  const raw = readFileSync(fileURLToPath(new URL('../../fixtures/compat/modern-layout.eml', import.meta.url)));
  const transport = nodemailer.createTransport({ host: service.smtpHost, port: service.smtpPort, secure: false, ignoreTLS: true });
  await transport.sendMail({ envelope: { from: 'news@acme.example', to: inbox.address }, raw });
  transport.close();
  const message = await inbox.waitForMessage({ subject: 'Our spring collection' });

  await expect(message).toBeCompatibleWith('apple-mail');
  const error = await expect(message).toBeCompatibleWith(['gmail.desktop-webmail', 'outlook.windows']).then(() => null, (e: unknown) => e as Error);
  expect(error?.message).toContain('2 clients lacking features');
  expect(error?.message).toMatch(/Gmail Desktop Webmail \(gmail\.desktop-webmail\): score [\d.]+% supported\n\s+not supported: position \(line 11\)/);
  expect(error?.message).toContain('not supported: <form> element');
  await expect(message).toBeCompatibleWith('gmail.desktop-webmail', { ignore: ['css-position'] });
  await expect(expect(message).toBeCompatibleWith('outlok')).rejects.toThrow(/unknown email client "outlok" \(did you mean "outlook"\?\)/);
});
