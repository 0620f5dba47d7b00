/**
 * Email through the providers' APIs beside SMTP: an app's SDK (Resend,
 * SendGrid, Postmark, SES v2, Mailgun) sends a verification mail to the
 * test's inbox on the local service, and the test's `waitForMessage` holds
 * it with its code; the same wait for an email sent over SMTP is the
 * reference. Measured from the send's start to the message in hand.
 *
 * @packageDocumentation
 */
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import sendgridClient from '@sendgrid/client';
import sendgridMail from '@sendgrid/mail';
import FormData from 'form-data';
import Mailgun from 'mailgun.js';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { ServerClient } from 'postmark';
import { Resend } from 'resend';
import { createClient } from '../../src/client/index.ts';
import { startServer } from '../../src/server/index.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** Each path's latency: `smtp`, then one per provider. */
export type EmailApisResult = Array<{ path: string; latency: LatencySummary }>;

type Send = (to: string, code: string) => Promise<unknown>;

const { Client } = sendgridClient as unknown as { Client: new () => typeof sendgridClient };
const { MailService } = sendgridMail as unknown as { MailService: new () => typeof sendgridMail };

/** Each path's send, against a service at `url` (the SMTP one through `transport`). */
function sendsOf(url: string, transport: Transporter, ses: SESv2Client): Array<[string, Send]> {
  const text = (code: string) => `Your Acme code is ${code}`;
  const resend = new Resend('re_bench', { baseUrl: `${url}/email/resend` });
  const client = new Client();
  client.setDefaultRequest('baseUrl', `${url}/email/sendgrid`);
  const sendgrid = new MailService();
  sendgrid.setClient(client);
  const postmark = new ServerClient('bench', { requestHost: `${url.replace(/^http:\/\//, '')}/email/postmark`, useHttps: false });
  const mailgun = new Mailgun(FormData).client({ username: 'api', key: 'bench', url: `${url}/email/mailgun` });
  return [
    ['email, SMTP', (to, code) => transport.sendMail({ from: 'no-reply@acme.example', to, subject: 'Your code', text: text(code) })],
    ['Resend SDK', (to, code) => resend.emails.send({ from: 'no-reply@acme.example', to, subject: 'Your code', text: text(code) })],
    ['SendGrid SDK', (to, code) => sendgrid.send({ from: 'no-reply@acme.example', to, subject: 'Your code', text: text(code) })],
    ['Postmark SDK', (to, code) => postmark.sendEmail({ From: 'no-reply@acme.example', To: to, Subject: 'Your code', TextBody: text(code) })],
    ['SES v2 SDK', (to, code) => ses.send(new SendEmailCommand({ FromEmailAddress: 'no-reply@acme.example', Destination: { ToAddresses: [to] }, Content: { Simple: { Subject: { Data: 'Your code' }, Body: { Text: { Data: text(code) } } } } }))],
    ['Mailgun SDK', (to, code) => mailgun.messages.create('acme.example', { from: 'no-reply@acme.example', to, subject: 'Your code', text: text(code) })],
  ];
}

/** `count` verification mails per path, each waited for by the test's inbox. */
export async function runEmailApis(options: { count: number; log: (line: string) => void }): Promise<EmailApisResult> {
  options.log(`email-apis: ${options.count} mails over SMTP and through each provider SDK, each waited for`);
  const server = await startServer({ port: 0, smtpPort: 0, rateLimit: null });
  const client = createClient({ baseUrl: server.url, retry: false });
  const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
  const ses = new SESv2Client({ endpoint: `${server.url}/email/ses`, region: 'us-east-1', credentials: { accessKeyId: 'AKIABENCH', secretAccessKey: 'bench' } });
  try {
    const inbox = await client.inboxes.create();
    const results: EmailApisResult = [];
    for (const [path, send] of sendsOf(server.url, transport, ses)) {
      const latencies: number[] = [];
      for (let i = 0; i < options.count; i++) {
        const code = String(100000 + i);
        const t0 = performance.now();
        const [mail] = await Promise.all([inbox.waitForMessage(undefined, { timeout: 30_000 }), send(inbox.address, code)]);
        if (mail.otp() !== code) throw new Error(`bench: ${path} held ${mail.otp()}, not ${code}`);
        latencies.push(performance.now() - t0);
      }
      results.push({ path, latency: summarize(latencies.slice(1)) });
    }
    return results;
  } finally {
    ses.destroy();
    transport.close();
    await client.close();
    await server.close();
  }
}
