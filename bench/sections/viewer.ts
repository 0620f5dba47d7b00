/**
 * The web viewer: how long an inbox of many messages takes to show its first
 * page in Chromium, from navigation start to the list rendered (the viewer's
 * `inboxkit-viewer:first-page` performance mark): page, script, the inbox list
 * and the first page of messages from the API, and the DOM.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
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
}

/** Fills an inbox with `messages`, then opens its deep link `loads` times (after 3 unmeasured loads). */
export async function runViewer(options: { build: string; messages: number; loads: number; log: (line: string) => void }, hostOptions: HostOptions = {}): Promise<ViewerResult> {
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
    return { messages: options.messages, shown, firstPage: summarize(samples) };
  } finally {
    await browser.close();
    await host.stop();
  }
}
