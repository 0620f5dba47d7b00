/**
 * The Acme example application: a small server-rendered web app that sends real
 * transactional email over SMTP, for inboxkit's end-to-end examples.
 *
 * Flows: sign-up with a confirmation link, passwordless login with a 6-digit
 * code, password reset with an expiring link, an invoice with a PDF attachment,
 * a newsletter with tracking-wrapped links, two-factor sign-in with an
 * authenticator app, phone verification through Twilio Verify, and a beta
 * waitlist whose mail goes through Resend's API. State lives in memory, per
 * instance.
 */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  confirmEmail,
  invoiceEmail,
  newsletterEmail,
  resetPasswordEmail,
  safeLinksWrap,
  signInCodeEmail,
  type NewsletterStory,
} from './emails.ts';
import { appUrl, escapeHtml } from './html.ts';
import { createMailer, MailDeliveryError } from './mailer.ts';
import { a, form, p, page } from './pages.ts';
import { formatAmount } from './pdf.ts';
import { createStore, normaliseEmail } from './store.ts';
import { createTwoFactor } from './two-factor.ts';
import { createPhoneVerification } from './phone.ts';
import type { PhoneOptions } from './phone.ts';
import { createWaitlist } from './waitlist.ts';
import type { WaitlistOptions } from './waitlist.ts';

/** How to start the example app. */
export interface ExampleAppOptions {
  /**
   * HTTP port; 0 picks a free one.
   * @defaultValue 0
   */
  port?: number;
  /**
   * Interface to listen on.
   * @defaultValue '127.0.0.1'
   */
  host?: string;
  /**
   * SMTP server the app sends through (no auth, no TLS).
   * @defaultValue '127.0.0.1'
   */
  smtpHost?: string;
  /** SMTP port, e.g. the inboxkit server's SMTP intake. */
  smtpPort: number;
  /**
   * Base URL put in email links.
   * @defaultValue the URL the app listens on
   */
  publicUrl?: string;
  /**
   * How long a password reset link works, in milliseconds.
   * @defaultValue 900000 (15 minutes)
   */
  resetLinkTtlMs?: number;
  /**
   * How long a sign-in code works, in milliseconds.
   * @defaultValue 600000 (10 minutes)
   */
  signInCodeTtlMs?: number;
  /**
   * The From header of every email.
   * @defaultValue 'Acme <no-reply@acme.example>'
   */
  from?: string;
  /**
   * The clock (milliseconds since the epoch); tests inject one to expire links without waiting.
   * @defaultValue Date.now
   */
  now?: () => number;
  /**
   * Phone verification through Twilio Verify (`/account/phone`).
   * @defaultValue none: the phone pages are not offered
   */
  phone?: PhoneOptions;
  /**
   * The beta waitlist (`/waitlist`), whose mail goes through Resend's API with the `resend` SDK.
   * @defaultValue none: the waitlist pages are not offered
   */
  waitlist?: Omit<WaitlistOptions, 'from'>;
}

/** A running example app. */
export interface ExampleApp {
  /** Base URL, e.g. `http://127.0.0.1:3000` (no trailing slash). */
  url: string;
  /** Stops the HTTP server and the SMTP transport. */
  close(): Promise<void>;
}

const CONFIRM_LINK_TTL_MS = 24 * 60 * 60 * 1000;
const SESSION_COOKIE = 'acme_session';
const MAX_BODY_BYTES = 64 * 1024;

const NOTICES: Record<string, string> = {
  'email-confirmed': 'Email confirmed',
  'signed-in': 'You are signed in',
};

/** The newsletter's stories: paths on the app, with the query strings real campaigns add. */
const STORIES = [
  { slug: 'faster-builds', title: 'Builds are now twice as fast', teaser: 'We rewrote the build cache from scratch. Most projects now build in half the time, with no change on your side.' },
  { slug: 'simpler-pricing', title: 'Simpler pricing, same features', teaser: 'Three plans instead of seven, and every plan now includes unlimited collaborators and the audit log.' },
  { slug: 'changelog-48', title: 'Changelog: week 48', teaser: 'Dark mode for the dashboard, CSV export for invoices, and fourteen bug fixes reported by you.' },
] as const;

interface Reply {
  status: number;
  body: string;
  type?: string;
  headers?: Record<string, string | string[]>;
}

interface Context {
  url: URL;
  form: URLSearchParams;
  sessionId: string | undefined;
  email: string | undefined;
}

type Handler = (ctx: Context) => Reply | Promise<Reply>;

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function formatDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes >= 1) return minutes === 1 ? '1 minute' : `${minutes} minutes`;
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

function isEmail(value: string): boolean {
  return /^[^\s@<>"]+@[^\s@<>"]+$/.test(value);
}

function cookies(header: string | undefined): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) jar.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return jar;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `The form is larger than ${MAX_BODY_BYTES} bytes. Send less data.`);
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function html(status: number, body: string, headers?: Record<string, string | string[]>): Reply {
  return { status, body, type: 'text/html; charset=utf-8', ...(headers ? { headers } : {}) };
}

function redirect(location: string, status = 303, headers: Record<string, string | string[]> = {}): Reply {
  return { status, body: '', headers: { location, ...headers } };
}

function defaultPublicUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/**
 * Starts the example app and resolves once it listens.
 *
 * @example
 * const app = await startExampleApp({ port: 0, smtpPort: 2525 });
 * console.log(`open ${app.url}/signup`);
 * await app.close();
 */
export async function startExampleApp(options: ExampleAppOptions): Promise<ExampleApp> {
  const host = options.host ?? '127.0.0.1';
  const smtpHost = options.smtpHost ?? '127.0.0.1';
  const resetTtl = options.resetLinkTtlMs ?? 15 * 60 * 1000;
  const codeTtl = options.signInCodeTtlMs ?? 10 * 60 * 1000;
  const now = options.now ?? Date.now;
  const store = createStore(now);
  const mailer = createMailer({ host: smtpHost, port: options.smtpPort, from: options.from ?? 'Acme <no-reply@acme.example>' });
  const clickSecret = randomBytes(32);
  let base = options.publicUrl?.replace(/\/+$/, '') ?? '';

  const signClick = (target: string, messageRef: string): string =>
    createHmac('sha256', clickSecret).update(`${messageRef}\n${target}`).digest('base64url').slice(0, 22);

  const sessionCookie = (id: string): string => `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`;

  const startSession = (email: string, notice: string): Reply =>
    redirect(`/dashboard?notice=${notice}`, 303, { 'set-cookie': sessionCookie(store.startSession(email)) });
  // With two-factor sign-in on, every way in (password, email code, confirmation link) asks for the authenticator's code first.
  const twoFactor = createTwoFactor({ now, issuer: 'Acme', html: (status, body) => html(status, body), redirect: (location) => redirect(location), startSession });
  const signInAndGo = (email: string, notice: string): Reply => twoFactor.challenge(email, notice) ?? startSession(email, notice);

  const requireEmail = (ctx: Context, field = 'email'): string => {
    const email = normaliseEmail(ctx.form.get(field) ?? '');
    if (!isEmail(email)) throw new HttpError(400, `"${ctx.form.get(field) ?? ''}" is not an email address. Enter an address like name@example.com.`);
    return email;
  };

  const checkEmailPage = (ctx: Context, title: string, notice: string, extra = ''): Reply =>
    html(200, page({ title, notice, signedIn: !!ctx.email, body: extra }));

  const routes: Record<string, Handler> = {
    'GET /': (ctx) =>
      html(200, page({
        title: 'Acme example app',
        signedIn: !!ctx.email,
        body: [
          p('This app sends real email over SMTP so inboxkit can test its flows.'),
          '<ul>',
          `<li>${a('/signup', 'Sign up')} (confirmation link)</li>`,
          `<li>${a('/login', 'Sign in with an email code')} (6-digit code)</li>`,
          `<li>${a('/signin', 'Sign in with a password')}</li>`,
          `<li>${a('/forgot', 'Forgot your password?')} (expiring reset link)</li>`,
          `<li>${a('/billing', 'Billing')} (invoice with a PDF attachment)</li>`,
          `<li>${a('/newsletter', 'Newsletter')} (tracking links)</li>`,
          '</ul>',
        ].join('\n'),
      })),

    'GET /healthz': () => ({ status: 200, body: 'ok\n', type: 'text/plain; charset=utf-8' }),

    // 1. Sign-up with a confirmation link.
    'GET /signup': (ctx) => html(200, page({
      title: 'Create your account',
      signedIn: !!ctx.email,
      body: form('/signup', [
        { name: 'email', label: 'Email', type: 'email', attributes: 'autocomplete="email"' },
        { name: 'password', label: 'Password', type: 'password', attributes: 'autocomplete="new-password" minlength="8"' },
      ], 'Create account'),
    })),
    'POST /signup': async (ctx) => {
      const email = requireEmail(ctx);
      const password = ctx.form.get('password') ?? '';
      if (password.length < 8) throw new HttpError(400, 'The password is too short: use at least 8 characters.');
      const existing = store.user(email);
      if (existing?.confirmed) {
        throw new HttpError(409, `An account for ${email} already exists. Sign in, or reset your password if you forgot it.`);
      }
      store.saveUser({ email, confirmed: false, passwordHash: await store.hashPassword(password) });
      const token = store.issueToken('confirm', email, CONFIRM_LINK_TTL_MS);
      await mailer.send(email, confirmEmail(appUrl(base, '/confirm', { token, email })));
      return checkEmailPage(ctx, 'Check your email', `We sent a confirmation link to ${email}.`, p('Open the link in the email to confirm your address and sign in.'));
    },
    'GET /confirm': (ctx) => {
      const token = ctx.url.searchParams.get('token') ?? '';
      const email = ctx.url.searchParams.get('email') ?? '';
      const check = store.checkToken('confirm', token, email);
      if (!check.ok) {
        return check.reason === 'expired'
          ? html(410, page({ title: 'Link expired', error: 'This link has expired. Sign up again to get a new confirmation link.', body: a('/signup', 'Sign up') }))
          : html(400, page({ title: 'Link not valid', error: 'This confirmation link is not valid: it was already used, or it was cut off when copied. Open the link from the latest email.', body: a('/signup', 'Sign up') }));
      }
      store.consumeTokens('confirm', check.email);
      const user = store.user(check.email);
      if (user) store.saveUser({ ...user, confirmed: true });
      return signInAndGo(check.email, 'email-confirmed');
    },

    // Password sign-in (used after a password reset).
    'GET /signin': (ctx) => html(200, page({
      title: 'Sign in',
      signedIn: !!ctx.email,
      body: form('/signin', [
        { name: 'email', label: 'Email', type: 'email', attributes: 'autocomplete="email"' },
        { name: 'password', label: 'Password', type: 'password', attributes: 'autocomplete="current-password"' },
      ], 'Sign in') + `\n<p>${a('/forgot', 'Forgot your password?')} · ${a('/login', 'Email me a sign-in code')}</p>`,
    })),
    'POST /signin': async (ctx) => {
      const email = requireEmail(ctx);
      const user = store.user(email);
      if (!user || !(await store.verifyPassword(user, ctx.form.get('password') ?? ''))) {
        throw new HttpError(401, 'Incorrect email or password. Try again, or reset your password.');
      }
      if (!user.confirmed) throw new HttpError(403, `Confirm your email first: open the link we sent to ${email} when you signed up.`);
      return signInAndGo(email, 'signed-in');
    },

    // 2. Passwordless login with a 6-digit code.
    'GET /login': (ctx) => html(200, page({
      title: 'Sign in with a code',
      signedIn: !!ctx.email,
      body: p('We will email you a 6-digit code.') + form('/login', [{ name: 'email', label: 'Email', type: 'email', attributes: 'autocomplete="email"' }], 'Email me a code'),
    })),
    'POST /login': async (ctx) => {
      const email = requireEmail(ctx);
      const code = store.issueCode(email, codeTtl);
      const requestedAt = new Date(now());
      const reference = `REF-${requestedAt.toISOString().slice(0, 10).replaceAll('-', '')}-${randomInt(1000, 10000)}`;
      await mailer.send(email, signInCodeEmail({ code, requestedAt, validFor: formatDuration(codeTtl), reference }));
      return redirect(`/login/verify?email=${encodeURIComponent(email)}`);
    },
    'GET /login/verify': (ctx) => {
      const email = normaliseEmail(ctx.url.searchParams.get('email') ?? '');
      if (!isEmail(email)) return redirect('/login');
      return html(200, page({ title: 'Enter your code', notice: `We emailed a 6-digit code to ${email}.`, body: verifyForm(email) }));
    },
    'POST /login/verify': (ctx) => {
      const email = requireEmail(ctx);
      const check = store.checkCode(email, ctx.form.get('code') ?? '');
      if (check.ok) {
        store.saveUser({ ...store.user(email), email, confirmed: true });
        return signInAndGo(email, 'signed-in');
      }
      const errors = {
        none: [400, `There is no pending sign-in code for ${email}. Request a new code.`],
        expired: [410, 'That code has expired. Request a new one.'],
        locked: [429, 'Too many wrong codes. Request a new one.'],
        wrong: [400, 'That code is not right. Check the latest email from Acme and try again.'],
      } as const;
      const [status, message] = errors[check.reason];
      const body = check.reason === 'wrong' ? verifyForm(email) : a('/login', 'Request a new code');
      return html(status, page({ title: 'Enter your code', error: message, body }));
    },

    // 3. Password reset with an expiring link.
    'GET /forgot': (ctx) => html(200, page({
      title: 'Reset your password',
      signedIn: !!ctx.email,
      body: form('/forgot', [{ name: 'email', label: 'Email', type: 'email', attributes: 'autocomplete="email"' }], 'Send reset link'),
    })),
    'POST /forgot': async (ctx) => {
      const email = requireEmail(ctx);
      if (store.user(email)) {
        const token = store.issueToken('reset', email, resetTtl);
        await mailer.send(email, resetPasswordEmail(appUrl(base, '/reset', { token, email }), formatDuration(resetTtl)));
      }
      return checkEmailPage(ctx, 'Check your email', `If an account exists for ${email}, we sent it a link to reset the password. The link expires in ${formatDuration(resetTtl)}.`);
    },
    'GET /reset': (ctx) => {
      const token = ctx.url.searchParams.get('token') ?? '';
      const email = ctx.url.searchParams.get('email') ?? '';
      const check = store.checkToken('reset', token, email);
      if (!check.ok) return resetLinkProblem(check.reason);
      return html(200, page({
        title: 'Choose a new password',
        body: form('/reset', [
          { name: 'token', label: '', type: 'hidden', value: token },
          { name: 'email', label: '', type: 'hidden', value: email },
          { name: 'password', label: 'New password', type: 'password', attributes: 'autocomplete="new-password" minlength="8"' },
        ], 'Update password'),
      }));
    },
    'POST /reset': async (ctx) => {
      const email = requireEmail(ctx);
      const check = store.checkToken('reset', ctx.form.get('token') ?? '', email);
      if (!check.ok) return resetLinkProblem(check.reason);
      const password = ctx.form.get('password') ?? '';
      if (password.length < 8) throw new HttpError(400, 'The new password is too short: use at least 8 characters.');
      store.consumeTokens('reset', email);
      store.endSessionsOf(email);
      store.saveUser({ email, confirmed: true, passwordHash: await store.hashPassword(password) });
      return html(200, page({ title: 'Password updated', body: p('Your password was changed. Sign in with your new password.') + a('/signin', 'Sign in') }));
    },

    'GET /dashboard': (ctx) => {
      if (!ctx.email) return redirect('/signin');
      const notice = NOTICES[ctx.url.searchParams.get('notice') ?? ''];
      return html(200, page({
        title: 'Dashboard',
        signedIn: true,
        ...(notice ? { notice } : {}),
        body: `<p id="account">Signed in as ${escapeHtml(ctx.email)}</p>\n<p>Send yourself an invoice from ${a('/billing', 'the billing page')}, or subscribe to ${a('/newsletter', 'Acme Weekly')}.</p>`,
      }));
    },
    'POST /signout': (ctx) => {
      store.endSession(ctx.sessionId);
      return redirect('/', 303, { 'set-cookie': `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0` });
    },

    // 4. Invoice with a PDF attachment.
    'GET /billing': (ctx) => html(200, page({
      title: 'Billing',
      signedIn: !!ctx.email,
      body: p('Acme Pro plan, monthly: USD 49.00.') + form('/billing', [{ name: 'email', label: 'Email', type: 'email', value: ctx.email ?? '', attributes: 'autocomplete="email"' }], 'Send invoice'),
    })),
    'POST /billing': async (ctx) => {
      const email = requireEmail(ctx);
      const n = store.nextInvoiceNumber();
      const invoice = {
        number: `INV-${n}`,
        issuedAt: new Date(now()),
        billedTo: email,
        currency: 'USD',
        lines: [{ description: 'Acme Pro plan, monthly', amountCents: 4900 }],
      };
      await mailer.send(email, invoiceEmail(invoice, n, appUrl(base, '/billing')));
      return checkEmailPage(ctx, 'Invoice sent', `We emailed invoice ${invoice.number} (USD ${formatAmount(4900)}) to ${email}.`);
    },

    // 5. Newsletter with tracking-wrapped links.
    'GET /newsletter': (ctx) => html(200, page({
      title: 'Acme Weekly',
      signedIn: !!ctx.email,
      body: p('What shipped at Acme this week, every Friday.') + form('/newsletter', [{ name: 'email', label: 'Email', type: 'email', value: ctx.email ?? '', attributes: 'autocomplete="email"' }], 'Subscribe'),
    })),
    'POST /newsletter': async (ctx) => {
      const email = requireEmail(ctx);
      const unsubscribeToken = store.subscribe(email);
      const messageRef = randomBytes(9).toString('base64url');
      const track = (target: string): string => appUrl(base, '/t/click', { u: target, m: messageRef, s: signClick(target, messageRef) });
      const stories: NewsletterStory[] = STORIES.map((s) => ({
        title: s.title,
        teaser: s.teaser,
        trackedHref: track(appUrl(base, `/articles/${s.slug}`, { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'weekly-48' })),
      }));
      await mailer.send(email, newsletterEmail(stories, {
        unsubscribe: appUrl(base, '/newsletter/unsubscribe', { email, token: unsubscribeToken }),
        safeLinksText: safeLinksWrap(track(appUrl(base, '/'))),
        // The app has no archive page: the one broken link, for examples/email-quality.spec.ts.
        archive: appUrl(base, '/newsletter/archive'),
      }));
      return checkEmailPage(ctx, "You're subscribed", `We sent this week's issue of Acme Weekly to ${email}.`);
    },
    'GET /t/click': (ctx) => {
      const target = ctx.url.searchParams.get('u') ?? '';
      const messageRef = ctx.url.searchParams.get('m') ?? '';
      const signature = Buffer.from(ctx.url.searchParams.get('s') ?? '');
      const expected = Buffer.from(signClick(target, messageRef));
      if (signature.length !== expected.length || !timingSafeEqual(signature, expected) || !/^https?:\/\//.test(target)) {
        return html(400, page({ title: 'Link not valid', error: 'This tracking link was changed or cut off. Open the link from the email again.', body: '' }));
      }
      return redirect(target, 302, { 'cache-control': 'no-store' });
    },
    'GET /newsletter/unsubscribe': (ctx) => {
      const email = ctx.url.searchParams.get('email') ?? '';
      const token = ctx.url.searchParams.get('token') ?? '';
      return html(200, page({
        title: 'Unsubscribe',
        body: p(`Stop sending Acme Weekly to ${email}?`) + form('/newsletter/unsubscribe', [
          { name: 'email', label: '', type: 'hidden', value: email },
          { name: 'token', label: '', type: 'hidden', value: token },
        ], 'Unsubscribe'),
      }));
    },
    // Whether an address gets the newsletter (what a test checks after unsubscribing).
    'GET /newsletter/status': (ctx) => {
      const email = ctx.url.searchParams.get('email') ?? '';
      return html(200, page({ title: 'Subscription', body: `<p role="status">${escapeHtml(email)} is ${store.isSubscribed(email) ? 'subscribed' : 'not subscribed'} to Acme Weekly.</p>` }));
    },
    // Also the RFC 8058 one-click target: parameters in the query, `List-Unsubscribe=One-Click` in the body.
    'POST /newsletter/unsubscribe': (ctx) => {
      const email = ctx.form.get('email') ?? ctx.url.searchParams.get('email') ?? '';
      const token = ctx.form.get('token') ?? ctx.url.searchParams.get('token') ?? '';
      if (!store.unsubscribe(email, token)) {
        return html(400, page({ title: 'Link not valid', error: 'This unsubscribe link is not valid. Use the link from the latest newsletter.', body: '' }));
      }
      return html(200, page({ title: 'You have been unsubscribed', body: p(`We will not send Acme Weekly to ${email} any more.`) }));
    },

    // 6. Two-factor sign-in with an authenticator app (examples/app/two-factor.ts).
    ...twoFactor.routes,

    // 7. Phone verification through Twilio Verify (examples/app/phone.ts).
    ...(options.phone ? createPhoneVerification(options.phone, { html: (status, body) => html(status, body), redirect: (location) => redirect(location) }) : {}),

    // 8. The beta waitlist, its mail sent through Resend's API (examples/app/waitlist.ts).
    ...(options.waitlist ? createWaitlist({ ...options.waitlist, from: options.from ?? 'Acme <no-reply@acme.example>' }, { html: (status, body) => html(status, body), publicUrl: () => base }) : {}),
  };

  function verifyForm(email: string): string {
    return form('/login/verify', [
      { name: 'email', label: '', type: 'hidden', value: email },
      { name: 'code', label: 'Code', type: 'text', attributes: 'inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7"' },
    ], 'Sign in');
  }

  function resetLinkProblem(reason: 'invalid' | 'expired'): Reply {
    return reason === 'expired'
      ? html(410, page({ title: 'Link expired', error: 'This link has expired. Request a new password reset link.', body: a('/forgot', 'Request a new link') }))
      : html(400, page({ title: 'Link not valid', error: 'This password reset link is not valid: it was already used, or it was cut off when copied. Request a new one.', body: a('/forgot', 'Request a new link') }));
  }

  function article(slug: string): Reply | undefined {
    const story = STORIES.find((s) => s.slug === slug);
    if (!story) return undefined;
    return html(200, page({ title: story.title, body: p(story.teaser) }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', base);
    const method = req.method ?? 'GET';
    const jar = cookies(req.headers.cookie);
    const sessionId = jar.get(SESSION_COOKIE);
    let reply: Reply;
    try {
      const formData = method === 'POST' ? await readForm(req) : new URLSearchParams();
      const ctx: Context = { url, form: formData, sessionId, email: store.sessionEmail(sessionId) };
      const handler = routes[`${method} ${url.pathname}`];
      const articleReply = method === 'GET' && url.pathname.startsWith('/articles/') ? article(url.pathname.slice('/articles/'.length)) : undefined;
      reply = articleReply ?? (handler
        ? await handler(ctx)
        : html(404, page({ title: 'Page not found', error: `There is no page at ${method} ${url.pathname}.`, body: a('/', 'Go to the start page') })));
    } catch (error) {
      if (error instanceof HttpError) {
        reply = html(error.status, page({ title: 'Something is not right', error: error.message, body: a('/', 'Go to the start page') }));
      } else if (error instanceof MailDeliveryError) {
        reply = html(502, page({ title: 'Email not sent', error: error.message, body: '' }));
      } else {
        const message = error instanceof Error ? error.message : String(error);
        reply = html(500, page({ title: 'Server error', error: `The app failed: ${message}`, body: '' }));
      }
    }
    res.writeHead(reply.status, { ...(reply.type ? { 'content-type': reply.type } : {}), ...reply.headers });
    res.end(reply.body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`The app failed: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = defaultPublicUrl(host, port);
  if (!base) base = url;

  return {
    url,
    async close() {
      mailer.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
