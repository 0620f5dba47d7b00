/**
 * The screenshot of the viewer in docs/local-service.md, made from a real service with real
 * mail. It is attached to the report on every run; with
 * INBOXKIT_UPDATE_SCREENSHOT=1 it also replaces docs/viewer.png.
 */
import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPERATOR_TOKEN, expect, test } from './harness.ts';

const README_IMAGE = fileURLToPath(new URL('../../../docs/viewer.png', import.meta.url));

const EMAIL = `<div style="background:#f3f4f6;padding:24px;font-family:Helvetica,Arial,sans-serif">
<table role="presentation" width="100%" style="max-width:520px;margin:0 auto;background:#ffffff;border-radius:8px" cellpadding="0" cellspacing="0">
<tr><td style="padding:28px 32px 8px"><div style="font-size:20px;font-weight:700;color:#111827">Acme</div></td></tr>
<tr><td style="padding:8px 32px"><h1 style="font-size:22px;color:#111827;margin:0 0 12px">Confirm your email address</h1>
<p style="font-size:15px;line-height:22px;color:#374151">Hi Alice, thanks for signing up. Confirm your address to finish creating your account.</p>
<p style="margin:20px 0"><a href="https://links.acme.example/ls/click?upn=u001.confirm&amp;target=https%3A%2F%2Fapp.acme.example%2Fconfirm%3Ftoken%3Dq8Jx2" style="background:#2563eb;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:600">Confirm email</a></p>
<p style="font-size:14px;color:#6b7280">Or enter this code in the app: <strong style="font-size:18px;color:#111827;letter-spacing:2px">482 913</strong></p></td></tr>
<tr><td style="padding:16px 32px 28px;font-size:12px;color:#9ca3af">You get this email because someone signed up with this address. <a href="https://acme.example/unsubscribe" style="color:#9ca3af">Unsubscribe</a></td></tr>
</table></div>`;

test('the viewer, as its guide shows it: inboxes of a test run, a message list and a rendered email', async ({ page, viewer }, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 860 });
  const login = await viewer.createInbox('login › sends a one-time code', 'login-sends-code-w0');
  const reset = await viewer.createInbox('password reset › link expires after an hour', 'reset-link-expires-w0');
  const signup = await viewer.createInbox('sign-up › sends a confirmation link', 'signup-confirm-w0');
  await viewer.send({ to: login.address, subject: 'Your sign-in code', text: 'Your code is 771 204.' });
  await viewer.send({ to: reset.address, subject: 'Reset your password', text: 'Reset it: https://app.acme.example/reset?t=1' });
  await viewer.send({ to: signup.address, subject: 'Welcome to Acme', text: 'Glad to have you, Alice.' });
  await viewer.send({ to: signup.address, subject: 'Your invoice #2024-118', text: 'Your invoice is attached.', attachments: [{ filename: 'invoice.pdf', content: Buffer.from('%PDF-1.4 fake'), contentType: 'application/pdf' }] });
  await viewer.send({ to: signup.address, subject: 'Confirm your email address', html: EMAIL, text: 'Confirm your email: https://app.acme.example/confirm?token=q8Jx2 — or enter the code 482 913.' });

  await page.goto(viewer.link({ key: OPERATOR_TOKEN, inbox: signup.id }));
  await page.getByRole('link', { name: /Confirm your email address/ }).click();
  await expect(page.frameLocator('iframe[title="Message body (sanitized HTML)"]').getByRole('link', { name: 'Confirm email' })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveText('Live');

  const path = testInfo.outputPath('viewer.png');
  await page.screenshot({ path });
  await testInfo.attach('viewer.png', { path, contentType: 'image/png' });
  if (process.env.INBOXKIT_UPDATE_SCREENSHOT === '1') copyFileSync(path, README_IMAGE);
});
