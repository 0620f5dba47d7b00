/**
 * SMS beside email: an app's `twilio` SDK sends an SMS to the test's phone
 * (`messages.create()` against the local service), and the test's
 * `waitForMessage` on the phone holds it with its code; the same wait for an
 * email sent over SMTP, on the same service, is the reference. Measured from
 * the send's start to the message in hand.
 *
 * @packageDocumentation
 */
import nodemailer from 'nodemailer';
import twilio from 'twilio';
import { createClient } from '../../src/client/index.ts';
import { startServer } from '../../src/server/index.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** The two paths' latencies. */
export interface SmsResult {
  sms: LatencySummary;
  email: LatencySummary;
}

/** `count` SMS through the twilio SDK and `count` emails over SMTP, each waited for by a phone or an inbox. */
export async function runSms(options: { count: number; log: (line: string) => void }): Promise<SmsResult> {
  options.log(`sms: ${options.count} SMS through the twilio SDK and ${options.count} emails over SMTP, each waited for`);
  const server = await startServer({ port: 0, smtpPort: 0, rateLimit: null });
  const client = createClient({ baseUrl: server.url, retry: false });
  const base = `${server.url}/sms/twilio`;
  class ToInboxkit extends twilio.RequestClient {
    override request<T>(opts: Parameters<twilio.RequestClient['request']>[0]) {
      return super.request<T>({ ...opts, uri: opts.uri.replace(/^https:\/\/([a-z]+)\.twilio\.com/, `${base}/$1`) } as never);
    }
  }
  const sdk = twilio(`AC${'0'.repeat(32)}`, 'token', { httpClient: new ToInboxkit({ keepAlive: true }) });
  const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
  try {
    const phone = await client.phones.create();
    const inbox = await client.inboxes.create();
    const sms: number[] = [];
    const email: number[] = [];
    for (let i = 0; i < options.count; i++) {
      const code = String(100000 + i);
      let t0 = performance.now();
      const [text] = await Promise.all([phone.waitForMessage(undefined, { timeout: 30_000 }), sdk.messages.create({ to: phone.phoneNumber!, from: '+15005550006', body: `Your Acme code is ${code}` })]);
      if (text.otp() !== code) throw new Error(`bench: the SMS held ${text.otp()}, not ${code}`);
      sms.push(performance.now() - t0);
      t0 = performance.now();
      const [mail] = await Promise.all([inbox.waitForMessage(undefined, { timeout: 30_000 }), transport.sendMail({ from: 'no-reply@acme.example', to: inbox.address, subject: 'Your code', text: `Your Acme code is ${code}` })]);
      if (mail.otp() !== code) throw new Error(`bench: the email held ${mail.otp()}, not ${code}`);
      email.push(performance.now() - t0);
    }
    return { sms: summarize(sms.slice(1)), email: summarize(email.slice(1)) };
  } finally {
    transport.close();
    await client.close();
    await server.close();
  }
}
