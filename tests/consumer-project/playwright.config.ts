import { defineConfig, inboxkitServer } from '../../src/playwright/index.ts';

// The inbox service (HTTP API and SMTP intake), on free ports, started once for the run.
const inboxkit = inboxkitServer({ port: 0, smtpPort: 0 });
const appPort = Number(process.env.PORT ?? 3000);

export default defineConfig({
  testDir: '.',
  use: {
    baseURL: `http://127.0.0.1:${appPort}`,
    inboxkit: { baseUrl: inboxkit.baseUrl, waitTimeout: 15_000 },
  },
  webServer: [
    inboxkit.webServer,
    // Your app: it sends its mail to INBOXKIT_SMTP_HOST:INBOXKIT_SMTP_PORT (plain SMTP, no auth).
    { command: 'npm start', url: `http://127.0.0.1:${appPort}`, env: { ...inboxkit.env, PORT: String(appPort) } },
  ],
});
