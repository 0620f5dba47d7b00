/**
 * The suite the team-service harness runs (tests/integration/team/harness.spec.ts):
 * email tests through HAProxy while the nodes and PostgreSQL restart. It runs
 * only inside the harness, which sets where the service and the relay are.
 */
import { defineConfig } from '../../src/playwright/index.ts';

export default defineConfig({
  testDir: '.',
  timeout: 120_000,
  workers: 4,
  fullyParallel: true,
  retries: 0,
  reporter: [['json', { outputFile: process.env.INBOXKIT_TEAM_REPORT ?? 'team-report.json' }]],
  use: {
    inboxkit: { baseUrl: process.env.INBOXKIT_TEAM_BASE_URL ?? 'http://127.0.0.1:1', apiKey: process.env.INBOXKIT_TEAM_API_KEY, waitTimeout: 100_000 },
  },
});
