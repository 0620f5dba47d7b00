/**
 * Phone verification for the example app, through Twilio Verify with the real
 * `twilio` SDK: a signed-in user enters a phone number (checked with
 * libphonenumber-js, as most apps check it), Twilio texts a code, the user
 * types it, and Verify's check approves it. The app never sees the code.
 *
 * Pointed at the local inbox service with one option: the SDK's own
 * `httpClient` extension point, rewriting `https://<product>.twilio.com` to
 * `INBOXKIT_TWILIO_BASE_URL/<product>` (docs/phones.md).
 */
import { isValidPhoneNumber, parsePhoneNumber } from 'libphonenumber-js';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import { escapeHtml } from './html.ts';
import { form, p, page } from './pages.ts';

/** What a page handler returns (the app's reply shape). */
export interface Reply {
  status: number;
  body: string;
  type?: string;
  headers?: Record<string, string | string[]>;
}

/** The part of a request a handler reads. */
export interface RequestContext {
  url: URL;
  form: URLSearchParams;
  email: string | undefined;
}

/** Where the app's Twilio requests go and with which (made-up) credentials. */
export interface PhoneOptions {
  /** `INBOXKIT_TWILIO_BASE_URL`; without it the SDK talks to Twilio itself. */
  twilioBaseUrl?: string;
  accountSid: string;
  authToken: string;
  /** The Verify service (`VA…`). */
  verifyServiceSid: string;
}

// #region twilio-client
/** The app's `twilio` client, sent to `twilioBaseUrl` (INBOXKIT_TWILIO_BASE_URL) when one is given. */
export function twilioClient(options: { accountSid: string; authToken: string; twilioBaseUrl?: string | undefined }): twilio.Twilio {
  const base = options.twilioBaseUrl;
  if (!base) return twilio(options.accountSid, options.authToken);
  // The SDK's own request client, with only the host of each request changed: https://<product>.twilio.com → <base>/<product>.
  class ToInboxkit extends twilio.RequestClient {
    override request<T>(opts: RequestClient.RequestOptions<T>) {
      return super.request<T>({ ...opts, uri: opts.uri.replace(/^https:\/\/([a-z]+)\.twilio\.com/, `${base}/$1`) });
    }
  }
  return twilio(options.accountSid, options.authToken, { httpClient: new ToInboxkit() });
}
// #endregion

/** The phone pages: `/account/phone` (number, then code). */
export function createPhoneVerification(options: PhoneOptions, deps: { html: (status: number, body: string) => Reply; redirect: (location: string) => Reply }): Record<string, (ctx: RequestContext) => Promise<Reply>> {
  const verify = twilioClient(options).verify.v2.services(options.verifyServiceSid);
  const numberForm = (error?: string) =>
    deps.html(error ? 400 : 200, page({
      title: 'Verify your phone',
      signedIn: true,
      ...(error ? { error } : {}),
      body: form('/account/phone', [{ name: 'phone', label: 'Phone number', type: 'tel', attributes: 'autocomplete="tel"' }], 'Text me a code'),
    }));
  const codeForm = (phone: string, notice: string, error?: string) =>
    deps.html(error ? 400 : 200, page({
      title: 'Enter the code',
      signedIn: true,
      notice,
      ...(error ? { error } : {}),
      body: form('/account/phone/verify', [
        { name: 'phone', label: '', type: 'hidden', value: phone },
        { name: 'code', label: 'Code', type: 'text', attributes: 'inputmode="numeric" autocomplete="one-time-code" maxlength="10"' },
      ], 'Verify'),
    }));

  return {
    'GET /account/phone': async (ctx) => (ctx.email ? numberForm() : deps.redirect('/signin')),
    'POST /account/phone': async (ctx) => {
      if (!ctx.email) return deps.redirect('/signin');
      const typed = (ctx.form.get('phone') ?? '').trim();
      if (!isValidPhoneNumber(typed, 'US')) return numberForm(`"${typed}" is not a phone number we can text. Enter it with its country code, like +1 202 555 0123.`);
      const phone = parsePhoneNumber(typed, 'US').number;
      await verify.verifications.create({ to: phone, channel: 'sms' });
      return codeForm(phone, `We texted a code to ${phone}.`);
    },
    'POST /account/phone/verify': async (ctx) => {
      const email = ctx.email;
      if (!email) return deps.redirect('/signin');
      const phone = ctx.form.get('phone') ?? '';
      const check = await verify.verificationChecks.create({ to: phone, code: (ctx.form.get('code') ?? '').replace(/\s/g, '') }).catch(() => null);
      if (check?.status !== 'approved') return codeForm(phone, `We texted a code to ${phone}.`, 'That code is not right. Check the text message and try again.');
      return deps.html(200, page({ title: 'Phone verified', signedIn: true, notice: 'Phone verified', body: `${p(`Your phone ${phone} is verified.`)}\n<p id="account">Signed in as ${escapeHtml(email)} · ${escapeHtml(phone)}</p>` }));
    },
  };
}
