/**
 * What the viewer specs share: a real local service (HTTP + SMTP) serving the
 * viewer built from the current sources into the test's output folder, inbox
 * creation through the API, and mail over SMTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import { test as base } from '@playwright/test';
import { buildViewer } from '../../../scripts/build-viewer.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

/** The operator token the specs' service is started with. */
export const OPERATOR_TOKEN = `tmo_${'viewer-spec-operator'.padEnd(24, 'x')}`;

/** An inbox as `POST /inboxes` returns it, with its token. */
export interface CreatedInbox {
  id: string;
  address: string;
  token: string;
  label: string | null;
}

/** The service and helpers of a viewer spec. */
export interface Viewer {
  server: RunningServer;
  /** Creates an inbox through the API (a guest inbox, with its token); a random address without `localPart`. */
  createInbox(label?: string, localPart?: string): Promise<CreatedInbox>;
  /** Sends one message over SMTP. */
  send(mail: SendMailOptions): Promise<void>;
  /** Calls the API with an inbox token; resolves with the status and parsed body. */
  api(path: string, token: string, init?: RequestInit): Promise<{ status: number; body: unknown }>;
  /** The viewer URL with a fragment of these parameters. */
  link(params: Record<string, string>): string;
}

export const test = base.extend<{ viewer: Viewer }, { viewerAssets: string }>({
  viewerAssets: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'inboxkit-viewer-'));
      await buildViewer(dir);
      await use(dir);
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  viewer: async ({ viewerAssets }, use) => {
    const server = await startServer({ operatorToken: OPERATOR_TOKEN, viewerAssetsDir: viewerAssets, rateLimit: false, spamCheck: process.env.INBOXKIT_TEST_SPAMD_URL ?? null });
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
    const api: Viewer['api'] = async (path, token, init = {}) => {
      const res = await fetch(`${server.apiUrl}${path}`, { ...init, headers: { 'X-Inbox-Token': token, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
      return { status: res.status, body: await res.json() };
    };
    await use({
      server,
      api,
      async createInbox(label, localPart) {
        const body = { ...(label ? { label } : {}), ...(localPart ? { localPart } : {}) };
        const res = await fetch(`${server.apiUrl}/inboxes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        if (!res.ok) throw new Error(`POST /inboxes: ${res.status} ${await res.text()}`);
        return ((await res.json()) as { data: CreatedInbox }).data;
      },
      async send(mail) {
        await transport.sendMail({ from: 'Acme Accounts <no-reply@acme.example>', ...mail });
      },
      link(params) {
        return `${server.url}/#${new URLSearchParams(params)}`;
      },
    });
    transport.close();
    await server.close();
  },
});

export { expect } from '@playwright/test';
