/**
 * The examples' Playwright config: starts the local inbox service and the Acme
 * example app, then runs the specs in Chromium.
 *
 *   npx playwright test -c examples/playwright.config.ts
 *
 * In your own project, import from 'inboxkit/playwright' instead of the sources.
 */
import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import { inboxkitServer } from '../src/playwright/index.ts';

/** Ports of their own, so that a service or an app you already run on the defaults is not disturbed. */
const APP_PORT = 13_100;
const appUrl = `http://127.0.0.1:${APP_PORT}`;

const inboxkit = inboxkitServer({ port: 18_025, smtpPort: 12_525, reuseExistingServer: !process.env.CI });

/** Debian's chromium where installed, otherwise Playwright's own browser. */
const systemChromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // A minute a test: rendering an email in several clients or auditing it takes seconds, and many
  // times that on a loaded 2-core CI machine. Waits end sooner; they take the test's remaining time.
  timeout: 60_000,
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  workers: process.env.CI ? 2 : undefined,
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  outputDir: 'test-results',
  use: {
    ...inboxkit.use,
    baseURL: appUrl,
    browserName: 'chromium',
    headless: true,
    trace: 'retain-on-failure',
    launchOptions: systemChromium
      ? {
          executablePath: systemChromium,
          args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
        }
      : {},
  },
  webServer: [
    // 1. The inbox service (HTTP API and SMTP intake), started once for the run.
    inboxkit.webServer,
    // 2. The application under test, sending its mail to the service's SMTP port.
    {
      name: 'acme',
      command: `"${process.execPath}" app/main.ts`,
      url: `${appUrl}/healthz`,
      env: { ...inboxkit.env, PORT: String(APP_PORT), PUBLIC_URL: appUrl },
      reuseExistingServer: !process.env.CI,
      stdout: 'ignore',
    },
  ],
});
