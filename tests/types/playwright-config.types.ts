/**
 * Type tests of the Playwright config helpers, checked by `npx tsc --noEmit -p tsconfig.json`.
 * Nothing here runs: a config that should type-check and does not, or one that
 * should not and does (`@ts-expect-error` unused), is a compile error.
 */
/* eslint-disable @typescript-eslint/no-unused-vars -- values here exist only for the compiler to inspect */
import { defineConfig as playwrightDefineConfig, devices } from '@playwright/test';
import type { PlaywrightTestConfig } from '@playwright/test';
import { defineConfig, inboxkitServer } from '../../src/playwright/index.ts';
import type { InboxkitConfig } from '../../src/playwright/index.ts';

const inboxkit = inboxkitServer({ port: 0, smtpPort: 0 });

// The option in `use`, with no type argument, next to Playwright's own options.
const config = defineConfig({
  testDir: './e2e',
  use: {
    baseURL: 'http://127.0.0.1:3000',
    inboxkit: { baseUrl: inboxkit.baseUrl, apiKey: () => process.env.INBOXKIT_API_KEY, waitTimeout: 10_000, keepOnFailure: true },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], inboxkit: { domain: 'example.test' } } }],
  webServer: [inboxkit.webServer],
});

// What it returns is a Playwright config, usable wherever one is expected.
const asPlaywright: PlaywrightTestConfig = config;

// Further configs are merged, as by Playwright's defineConfig.
const merged = defineConfig(config, { use: { inboxkit: { attachToReport: false } } });

// Your own options next to inboxkit's, through the same type arguments as Playwright's.
const own = defineConfig<{ locale2: string }>({ use: { locale2: 'fr', inboxkit: {} } });
const typed: InboxkitConfig<{ locale2: string }> = own;

// A misspelt or mistyped option is an error.
// @ts-expect-error `baseURL` is Playwright's option; inboxkit's is `baseUrl`
defineConfig({ use: { inboxkit: { baseURL: 'http://127.0.0.1:8025' } } });
// @ts-expect-error waitTimeout is a number of milliseconds
defineConfig({ use: { inboxkit: { waitTimeout: '10s' } } });

// The problem this solves: Playwright's own defineConfig refuses the option without a type argument.
// @ts-expect-error TS2769: 'inboxkit' does not exist in Playwright's use options
playwrightDefineConfig({ use: { inboxkit: { baseUrl: 'http://127.0.0.1:8025' } } });
