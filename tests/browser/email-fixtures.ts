/**
 * The fixtures of the browser specs that send an email and show it: a local
 * service per worker (the `inboxkit` fixtures point at it), a small web site
 * that records every path requested from it (`/confirm` is a page with an
 * image; every other path a 1×1 GIF), and `send` over SMTP from Acme.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { test as base } from '../../src/playwright/index.ts';
import { startServer } from '../../src/server/index.ts';
import type { RunningServer } from '../../src/server/index.ts';

/** A small web site that records every path requested from it. */
export interface Site {
  url: string;
  requests: string[];
}

/** Sends one email to the local service from `Acme <no-reply@acme.example>`. */
export type Send = (mail: { to: string; subject: string; html?: string; text?: string }) => Promise<void>;

export const test = base.extend<{ site: Site; send: Send }, { local: RunningServer }>({
  local: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startServer({ port: 0, smtpPort: 0 });
      await use(server);
      await server.close();
    },
    { scope: 'worker' },
  ],
  inboxkit: [async ({ local }, use) => use({ baseUrl: local.url }), { scope: 'worker' }],
  // eslint-disable-next-line no-empty-pattern
  site: async ({}, use) => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(req.url ?? '');
      if (req.url === '/confirm') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><title>Confirmed</title><h1>Confirmed</h1><img src="/logo.png" alt="logo">');
        return;
      }
      res.writeHead(200, { 'content-type': 'image/gif' });
      res.end(Buffer.from('R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==', 'base64'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await use({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests });
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  },
  send: async ({ local }, use) => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: local.smtpPort, secure: false, ignoreTLS: true });
    await use(async (mail) => {
      await transport.sendMail({ from: 'Acme <no-reply@acme.example>', ...mail });
    });
    transport.close();
  },
});
