/**
 * `message.link(…).resolve()` (issue 37): a click-tracking redirect whose
 * target the URL does not carry (SendGrid's `/ls/click?upn=`) is followed
 * through the test's own request context, against a real tracker on
 * loopback, over a real inbox service and real SMTP; the target page itself
 * is never requested.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { test as base, expect } from '../../../src/playwright/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

interface Tracker {
  url: string;
  /** Paths requested, in order. */
  hits: string[];
}

const test = base.extend<{ tracker: Tracker; send: (to: string, subject: string, html: string) => Promise<void> }, { service: RunningServer }>({
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
  tracker: async ({}, use) => {
    const state: Tracker = { url: '', hits: [] };
    const server: Server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', state.url);
      state.hits.push(`${url.pathname}${url.search}`);
      // A tracker in two hops (a branded domain, then the provider), as SendGrid's link branding does.
      if (url.pathname === '/ls/click' && url.searchParams.get('upn') === 'hop1') res.writeHead(302, { location: `${state.url}/ls/click?upn=hop2` }).end();
      else if (url.pathname === '/ls/click' && url.searchParams.get('upn') === 'hop2') res.writeHead(302, { location: '/verify?t=tok-42' }).end();
      else if (url.pathname === '/ls/click') res.writeHead(200).end('tracking is off here');
      else res.writeHead(200).end('the target page');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await use(state);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  },
  send: async ({ service }, use) => {
    const transport = nodemailer.createTransport({ host: service.smtpHost, port: service.smtpPort, secure: false, ignoreTLS: true });
    await use(async (to, subject, html) => void (await transport.sendMail({ from: 'hello@acme.example', to, subject, html })));
    transport.close();
  },
});

test.describe('link.resolve()', () => {
  test('follows a tracker that keeps its target, hop by hop, and never requests the target page', async ({ inbox, send, tracker }) => {
    await send(inbox.address, 'Confirm your email', `<p><a href="${tracker.url}/ls/click?upn=hop1">Confirm email</a></p>`);
    const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
    const link = message.link('Confirm email');
    expect(link.trackedBy).toBe('sendgrid');
    expect(link.href).toBe(`${tracker.url}/ls/click?upn=hop1`);
    expect(link.reasons).toContain('tracked by sendgrid: the target is kept at sendgrid and cannot be read offline, so href is the tracked URL; in a Playwright test, await link.resolve() follows its redirect');
    // #region resolve
    const resolved = await message.link('Confirm email').resolve();
    // #endregion
    expect(resolved.href).toBe(`${tracker.url}/verify?t=tok-42`);
    expect(resolved.redirects).toEqual([`${tracker.url}/ls/click?upn=hop2`, `${tracker.url}/verify?t=tok-42`]);
    expect(resolved.reasons?.at(-1)).toBe(`resolved: sendgrid redirected to ${tracker.url}/verify?t=tok-42 (2 redirects followed; the target was not requested)`);
    expect(tracker.hits).toEqual(['/ls/click?upn=hop1', '/ls/click?upn=hop2']);
  });

  test('a tracker that does not redirect is an error that says tracking may be off', async ({ inbox, send, tracker }) => {
    await send(inbox.address, 'Reset', `<p><a href="${tracker.url}/ls/click?upn=off">Reset password</a></p>`);
    const message = await inbox.waitForMessage({ subject: 'Reset' });
    await expect(message.link('Reset password').resolve()).rejects.toThrow(/answered 200 without a redirect \(no Location\), so its target is unknown\. Is click tracking live/);
  });

  test('a link that is not tracked resolves to itself without a request', async ({ inbox, send, tracker }) => {
    await send(inbox.address, 'Welcome', `<p><a href="${tracker.url}/welcome">Open the app</a></p>`);
    const message = await inbox.waitForMessage({ subject: 'Welcome' });
    const resolved = await message.link('Open the app').resolve();
    expect(resolved.href).toBe(`${tracker.url}/welcome`);
    expect(resolved.redirects).toEqual([]);
    expect(tracker.hits).toEqual([]);
  });
});
