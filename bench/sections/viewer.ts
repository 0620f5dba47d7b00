/**
 * The web viewer in Chromium:
 * - how long an inbox of many messages takes to show its first page, from
 *   navigation start to the list rendered (the viewer's
 *   `inboxkit-viewer:first-page` performance mark): page, script, the inbox
 *   list and the first page of messages from the API, and the DOM;
 * - how long after the SMTP `250` a message shows in an open viewer (the live
 *   list, over the event stream), measured on the same clock by a
 *   MutationObserver in the page.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { chromium } from '@playwright/test';
import { buildViewer } from '../../scripts/build-viewer.ts';
import { startInboxkit } from '../lib/hosts.ts';
import type { HostOptions } from '../lib/hosts.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** Time to the first page of a filled inbox in the viewer. */
export interface ViewerResult {
  messages: number;
  /** Messages the first page showed. */
  shown: number;
  firstPage: LatencySummary;
  /** SMTP 250 (the sender's promise resolved) → the message in the open viewer's list, ms. */
  live: LatencySummary;
}

/**
 * Fills an inbox with `messages`, then opens its deep link `loads` times (after
 * 3 unmeasured loads); then sends `live` messages one by one to an empty inbox
 * open in the viewer.
 */
export async function runViewer(
  options: { build: string; messages: number; loads: number; live: number; log: (line: string) => void },
  hostOptions: HostOptions = {},
): Promise<ViewerResult> {
  await buildViewer(join(options.build, 'viewer'));
  options.log(`viewer: an inbox of ${options.messages} messages, first page in Chromium × ${options.loads}`);
  const host = await startInboxkit({ build: options.build, dbPath: null, fill: options.messages }, hostOptions);
  const executablePath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  try {
    const filled = host.ready.filled!;
    const link = `${host.ready.url}/#${new URLSearchParams({ token: filled.token, inbox: filled.inboxId })}`;
    const page = await browser.newPage();
    const samples: number[] = [];
    let shown = 0;
    for (let i = -3; i < options.loads; i++) {
      await page.goto('about:blank');
      await page.goto(link);
      const handle = await page.waitForFunction(() => performance.getEntriesByName('inboxkit-viewer:first-page')[0]?.startTime);
      const ms = (await handle.jsonValue()) as number;
      shown = await page.locator('#message-list li').count();
      if (i >= 0) samples.push(ms);
    }

    options.log(`viewer: ${options.live} messages sent to an open viewer, SMTP 250 → shown`);
    const created = await fetch(`${host.ready.apiUrl}/inboxes`, { method: 'POST' });
    const inbox = ((await created.json()) as { data: { id: string; address: string; token: string } }).data;
    await page.goto(`${host.ready.url}/#${new URLSearchParams({ token: inbox.token, inbox: inbox.id })}`);
    await page.getByRole('status', { name: 'Live updates' }).filter({ hasText: 'Live' }).waitFor();
    await page.evaluate(() => {
      const seen: Record<string, number> = {};
      (window as unknown as { seen: Record<string, number> }).seen = seen;
      new MutationObserver(() => {
        const now = performance.timeOrigin + performance.now();
        for (const el of document.querySelectorAll('#message-list .subject')) seen[el.textContent ?? ''] ??= now;
      }).observe(document.getElementById('app')!, { childList: true, subtree: true });
    });
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: host.ready.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
    const live: number[] = [];
    try {
      for (let i = -3; i < options.live; i++) {
        const subject = `live ${i}`;
        await transport.sendMail({ from: 'bench@example.test', to: inbox.address, subject, text: 'hello' });
        const acked = performance.timeOrigin + performance.now();
        const shownAt = (await (
          await page.waitForFunction((s) => (window as unknown as { seen: Record<string, number> }).seen[s], subject)
        ).jsonValue()) as number;
        if (i >= 0) live.push(shownAt - acked);
      }
    } finally {
      transport.close();
    }
    return { messages: options.messages, shown, firstPage: summarize(samples), live: summarize(live) };
  } finally {
    await browser.close();
    await host.stop();
  }
}
