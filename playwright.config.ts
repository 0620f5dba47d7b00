import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * The integration specs that also run on PostgreSQL (the `integration-postgres`
 * project): every spec whose service stores something, through the fixtures
 * of tests/support/backends.ts. Left out, because they test SQLite itself or
 * nothing of storage: the SQLite file specs (durability, at-rest, API keys
 * across restarts), the CLI and wiring specs, the OpenAPI document, and the
 * storage contract and multi-node specs (they cover both backends on their own).
 */
const ON_BOTH_BACKENDS = [
  'server-core/{access-ends,authorization,errors,events-resync,expiry,extension,hardening,inboxes,ratelimit,streams,viewer-api}.spec.ts',
  'server-mail/*.spec.ts',
  'team/metrics-table.spec.ts',
  'adversarial/{authorization,co-recipients,exhaustion,fuzz,hostile-content,load,pkce,ratelimit,smtp-abuse}.spec.ts',
];

/** Debian's chromium where installed, otherwise Playwright's own browser. */
const systemChromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export default defineConfig({
  testDir: './tests',
  timeout: 30_000,
  forbidOnly: !!process.env.CI,
  fullyParallel: true,
  // Two workers at least: most tests wait on sockets, so even two cores keep two busy
  // (Playwright's default, half the cores, would be one worker here).
  workers: process.env.CI ? 2 : Math.max(2, Math.floor(availableParallelism() / 2)),
  // A dot per test, the failures in full and a summary; `--reporter=list` names every test.
  // The last lines say why tests were skipped (tests/support/skip-reasons.ts).
  reporter: process.env.CI
    ? [['list'], ['html', { open: 'never' }], ['./tests/support/skip-reasons.ts']]
    : [['dot'], ['./tests/support/skip-reasons.ts']],
  projects: [
    { name: 'unit', testDir: './tests/unit' },
    { name: 'integration', testDir: './tests/integration' },
    {
      // The same specs on a fresh PostgreSQL schema per test; skipped, saying why,
      // without INBOXKIT_TEST_POSTGRES_URL (tests/support/backends.ts reads it).
      name: 'integration-postgres',
      testDir: './tests/integration',
      testMatch: ON_BOTH_BACKENDS,
      metadata: { storageBackend: 'postgres' },
    },
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
