import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';

/** Debian's chromium where installed, otherwise Playwright's own browser. */
const systemChromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export default defineConfig({
  testDir: './tests',
  timeout: 30_000,
  forbidOnly: !!process.env.CI,
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  // A dot per test, the failures in full and a summary; `--reporter=list` names every test.
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : [['dot']],
  projects: [
    { name: 'unit', testDir: './tests/unit' },
    { name: 'integration', testDir: './tests/integration' },
    {
      name: 'browser',
      testDir: './tests/browser',
      use: {
        browserName: 'chromium',
        headless: true,
        launchOptions: {
          executablePath: systemChromium,
          args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
        },
      },
    },
  ],
});
