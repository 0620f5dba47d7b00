/**
 * The config docs/email-checks.md shows for turning on, in a local run, the
 * families `toPassEmailChecks()` skips by default: a spam scanner given to the
 * service through inboxkitServer(), and a test DNS for sender authentication.
 * server.spec.ts runs a project with exactly this config (the scanner's
 * address replaced by the one the test machine runs).
 */
import { defineConfig, inboxkitServer } from '../../../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

// #region local-checks
const inboxkit = inboxkitServer({ port: 0, smtpPort: 0, spamCheck: 'spamd://127.0.0.1:783' }); // the spam family: a scanner
export default defineConfig({
  use: {
    inboxkit: {
      ...inboxkit.use.inboxkit,
      // the authentication family: the sender's records in a test DNS (here SPF and DMARC of acme.example)
      dns: { 'acme.example': 'v=spf1 ip4:127.0.0.1 -all', '_dmarc.acme.example': 'v=DMARC1; p=reject' },
    },
  },
  webServer: [inboxkit.webServer],
});
// #endregion

// The inline test's sender reads the SMTP port from here.
process.env.INBOXKIT_SMTP_PORT = inboxkit.env.INBOXKIT_SMTP_PORT;
