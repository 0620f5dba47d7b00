/**
 * The beta waitlist of the example app: a visitor enters an email address,
 * and the app sends its verification mail through an email provider's HTTP
 * API, with the real `resend` SDK, as many apps do instead of SMTP. The mail
 * carries a 6-digit code and a link; either confirms the spot.
 *
 * Pointed at the local inbox service with one option: the SDK's `baseUrl`,
 * from `INBOXKIT_RESEND_BASE_URL` (inboxkitServer().env; docs/email-apis.md).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { Resend } from 'resend';
import { appUrl, escapeHtml } from './html.ts';
import { form, p, page } from './pages.ts';
import type { Reply, RequestContext } from './phone.ts';

/** Where the app's Resend requests go, with which (made-up) key. */
export interface WaitlistOptions {
  /** `INBOXKIT_RESEND_BASE_URL`; without it the SDK talks to Resend itself. */
  resendBaseUrl?: string;
  /** The Resend API key (`re_…`). */
  apiKey: string;
  /** The From of the mail. */
  from: string;
}

// #region resend-client
/** The app's `resend` client, sent to `resendBaseUrl` (INBOXKIT_RESEND_BASE_URL) when one is given. */
export function resendClient(options: { apiKey: string; resendBaseUrl?: string | undefined }): Resend {
  return new Resend(options.apiKey, options.resendBaseUrl ? { baseUrl: options.resendBaseUrl } : undefined);
}
// #endregion

/** The waitlist pages: `/waitlist` (address, then code) and `/waitlist/confirm` (the link). */
export function createWaitlist(options: WaitlistOptions, deps: { html: (status: number, body: string) => Reply; publicUrl: () => string }): Record<string, (ctx: RequestContext) => Promise<Reply>> {
  const resend = resendClient(options);
  /** Pending spots: the code and the link's token of each address. */
  const pending = new Map<string, { code: string; token: string }>();
  const joined = (email: string) => deps.html(200, page({ title: 'You are on the waitlist', notice: 'You are on the waitlist', body: p(`We will write to ${email} when the beta opens.`) }));
  const codeForm = (email: string, error?: string) =>
    deps.html(error ? 400 : 200, page({
      title: 'Check your email',
      notice: `We emailed a code to ${email}.`,
      ...(error ? { error } : {}),
      body: form('/waitlist/verify', [
        { name: 'email', label: '', type: 'hidden', value: email },
        { name: 'code', label: 'Code', type: 'text', attributes: 'inputmode="numeric" autocomplete="one-time-code" maxlength="7"' },
      ], 'Confirm my spot'),
    }));

  return {
    'GET /waitlist': async () => deps.html(200, page({ title: 'Join the beta waitlist', body: form('/waitlist', [{ name: 'email', label: 'Email', type: 'email', attributes: 'autocomplete="email"' }], 'Join the waitlist') })),
    'POST /waitlist': async (ctx) => {
      const email = (ctx.form.get('email') ?? '').trim().toLowerCase();
      if (!/^[^\s@<>"]+@[^\s@<>"]+$/.test(email)) return deps.html(400, page({ title: 'Join the beta waitlist', error: 'Enter an email address, like ada@example.com.', body: '' }));
      const spot = { code: String(randomInt(0, 1_000_000)).padStart(6, '0'), token: randomBytes(18).toString('base64url') };
      pending.set(email, spot);
      const link = appUrl(deps.publicUrl(), '/waitlist/confirm', { email, token: spot.token });
      // #region resend-send
      const { error } = await resend.emails.send({
        from: options.from,
        to: email,
        subject: 'Confirm your spot on the waitlist',
        html: `<p>Thanks for joining the Acme beta waitlist.</p><p>Your verification code is <b>${spot.code}</b>.</p><p><a href="${escapeHtml(link)}">Confirm my spot</a></p>`,
        text: `Thanks for joining the Acme beta waitlist.\n\nYour verification code is ${spot.code}.\n\nConfirm your spot: ${link}\n`,
      });
      // #endregion
      if (error) return deps.html(502, page({ title: 'Email not sent', error: `Resend refused the email: ${error.message}`, body: '' }));
      return codeForm(email);
    },
    'POST /waitlist/verify': async (ctx) => {
      const email = ctx.form.get('email') ?? '';
      if (pending.get(email)?.code !== (ctx.form.get('code') ?? '').replace(/\s/g, '')) return codeForm(email, 'That code is not right. Check the email and try again.');
      pending.delete(email);
      return joined(email);
    },
    'GET /waitlist/confirm': async (ctx) => {
      const email = ctx.url.searchParams.get('email') ?? '';
      if (!pending.get(email) || pending.get(email)?.token !== ctx.url.searchParams.get('token')) return deps.html(400, page({ title: 'Link not valid', error: 'This confirmation link is not valid: it was already used, or it was cut off when copied.', body: '' }));
      pending.delete(email);
      return joined(email);
    },
  };
}
