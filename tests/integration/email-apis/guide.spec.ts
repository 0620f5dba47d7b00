/**
 * The examples of docs/email-apis.md, run: each SDK set up as the guide
 * says, from the variables `inboxkitServer()` hands the app.
 */
import FormData from 'form-data';
import Mailgun from 'mailgun.js';
import { ServerClient } from 'postmark';
import { Resend } from 'resend';
import sendgridClient from '@sendgrid/client';
import sgMail from '@sendgrid/mail';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { test, expect } from './fixtures.ts';

const { Client } = sendgridClient as unknown as { Client: new () => typeof sendgridClient };

test.beforeEach(({ env }) => {
  // The app's environment: what inboxkitServer() hands it, and its providers' keys.
  Object.assign(process.env, env, { RESEND_API_KEY: 're_test', SENDGRID_API_KEY: 'SG.test', POSTMARK_SERVER_TOKEN: 'server-token', MAILGUN_API_KEY: 'key-test', AWS_ACCESS_KEY_ID: 'AKIATEST', AWS_SECRET_ACCESS_KEY: 'secret' });
});

test('the Resend example of the guide delivers and the test reads the link', async ({ inbox }) => {
  const user = { email: inbox.address };
  const html = '<a href="https://app.acme.test/confirm?t=1">Confirm your email</a>';
  // #region resend
  // the app
  const resend = new Resend(process.env.RESEND_API_KEY, { baseUrl: process.env.INBOXKIT_RESEND_BASE_URL });
  await resend.emails.send({ from: 'Acme <hello@acme.test>', to: user.email, subject: 'Confirm your email', html });

  // the test
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
  expect(message.link('Confirm your email').href).toBe('https://app.acme.test/confirm?t=1');
  // #endregion
});

test('the SendGrid, Postmark, SES and Mailgun examples of the guide each deliver', async ({ inbox }) => {
  // #region sendgrid
  const client = new Client();
  client.setApiKey(process.env.SENDGRID_API_KEY!);
  if (process.env.INBOXKIT_SENDGRID_BASE_URL) client.setDefaultRequest('baseUrl', process.env.INBOXKIT_SENDGRID_BASE_URL);
  sgMail.setClient(client);
  // #endregion
  await sgMail.send({ to: inbox.address, from: 'a@acme.test', subject: 'SendGrid', text: 'x' });
  // #region postmark
  const host = process.env.INBOXKIT_POSTMARK_REQUEST_HOST;
  const postmark = new ServerClient(process.env.POSTMARK_SERVER_TOKEN!, host ? { requestHost: host, useHttps: false } : {});
  // #endregion
  await postmark.sendEmail({ From: 'a@acme.test', To: inbox.address, Subject: 'Postmark', TextBody: 'x' });
  // #region ses
  const ses = new SESv2Client({ region: 'us-east-1', ...(process.env.INBOXKIT_SES_ENDPOINT ? { endpoint: process.env.INBOXKIT_SES_ENDPOINT } : {}) });
  // #endregion
  await ses.send(new SendEmailCommand({ FromEmailAddress: 'a@acme.test', Destination: { ToAddresses: [inbox.address] }, Content: { Simple: { Subject: { Data: 'SES' }, Body: { Text: { Data: 'x' } } } } }));
  ses.destroy();
  // #region mailgun
  const mg = new Mailgun(FormData).client({ username: 'api', key: process.env.MAILGUN_API_KEY!, ...(process.env.INBOXKIT_MAILGUN_URL ? { url: process.env.INBOXKIT_MAILGUN_URL } : {}) });
  // #endregion
  await mg.messages.create('mg.acme.test', { from: 'a@acme.test', to: inbox.address, subject: 'Mailgun', text: 'x' });
  for (const subject of ['SendGrid', 'Postmark', 'SES', 'Mailgun']) await inbox.waitForMessage({ subject });
});

test('the template example of the guide registers a template the SendGrid send renders', async ({ local, inbox }) => {
  const baseUrl = local.url;
  // #region template
  await fetch(`${baseUrl}/email/templates/sendgrid/d-verify1`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subject: 'Welcome, {{name}}', html: '<a href="{{link}}">Verify</a> Code: {{code}}' }),
  });
  // the app: sgMail.send({ to, from, templateId: 'd-verify1', dynamicTemplateData: { name, link, code } })
  // #endregion
  const client = new Client();
  client.setDefaultRequest('baseUrl', process.env.INBOXKIT_SENDGRID_BASE_URL ?? '');
  sgMail.setClient(client);
  await sgMail.send({ to: inbox.address, from: 'a@acme.test', templateId: 'd-verify1', dynamicTemplateData: { name: 'Ada', link: 'https://app.acme.test/v', code: '424242' } });
  expect((await inbox.waitForMessage({ subject: 'Welcome, Ada' })).otp()).toBe('424242');
});
