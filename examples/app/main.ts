/**
 * Runs the Acme example app: `npx node examples/app/main.ts`.
 *
 * Environment: PORT (default 3000), HOST (default 127.0.0.1), SMTP_HOST /
 * INBOXKIT_SMTP_HOST (default 127.0.0.1), SMTP_PORT / INBOXKIT_SMTP_PORT
 * (default 2525), PUBLIC_URL (base of email links, default the listen URL),
 * RESET_LINK_TTL_SECONDS (default 900), INBOXKIT_TWILIO_BASE_URL (where the
 * twilio SDK's requests go), TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN,
 * TWILIO_VERIFY_SERVICE_SID (made-up defaults), INBOXKIT_RESEND_BASE_URL
 * (where the resend SDK's requests go), RESEND_API_KEY (a made-up default).
 */
import { startExampleApp } from './app.ts';

function numberFromEnv(names: readonly string[], fallback: number): number {
  for (const name of names) {
    const raw = process.env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) {
      console.error(`${name}=${raw} is not a valid number: set it to a whole number such as ${fallback}, or unset it.`);
      process.exit(2);
    }
    return value;
  }
  return fallback;
}

const env = process.env;
const smtpHost = env.SMTP_HOST || env.INBOXKIT_SMTP_HOST || '127.0.0.1';
const smtpPort = numberFromEnv(['SMTP_PORT', 'INBOXKIT_SMTP_PORT'], 2525);
const resetSeconds = numberFromEnv(['RESET_LINK_TTL_SECONDS'], 900);

const app = await startExampleApp({
  port: numberFromEnv(['PORT'], 3000),
  host: env.HOST || '127.0.0.1',
  smtpHost,
  smtpPort,
  resetLinkTtlMs: resetSeconds * 1000,
  ...(env.PUBLIC_URL ? { publicUrl: env.PUBLIC_URL } : {}),
  // Phone verification texts through Twilio Verify; with INBOXKIT_TWILIO_BASE_URL (inboxkitServer().env) the SDK talks to the inbox service.
  phone: {
    ...(env.INBOXKIT_TWILIO_BASE_URL ? { twilioBaseUrl: env.INBOXKIT_TWILIO_BASE_URL } : {}),
    accountSid: env.TWILIO_ACCOUNT_SID || `AC${'0'.repeat(32)}`,
    authToken: env.TWILIO_AUTH_TOKEN || 'example-auth-token',
    verifyServiceSid: env.TWILIO_VERIFY_SERVICE_SID || `VA${'0'.repeat(32)}`,
  },
  // The waitlist's mail goes through Resend's API; with INBOXKIT_RESEND_BASE_URL (inboxkitServer().env) the SDK talks to the inbox service.
  waitlist: {
    ...(env.INBOXKIT_RESEND_BASE_URL ? { resendBaseUrl: env.INBOXKIT_RESEND_BASE_URL } : {}),
    apiKey: env.RESEND_API_KEY || 're_example_key',
  },
}).catch((error: unknown) => {
  console.error(`The example app could not start: ${error instanceof Error ? error.message : String(error)}. Is the port free? Set PORT to another one.`);
  process.exit(1);
});

console.log(`Acme example app listening on ${app.url} (sending mail through SMTP ${smtpHost}:${smtpPort})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
