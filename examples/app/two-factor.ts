/**
 * Two-factor sign-in for the example app: a signed-in user enrols an
 * authenticator app by scanning a QR code (drawn by the `qrcode` library, as
 * real apps do) or typing the key, confirms it with a code, and from then on
 * every sign-in (password, email code or confirmation link) asks for the
 * authenticator's code before it starts a session.
 *
 * The codes are checked with an RFC 6238 implementation of its own (node:crypto),
 * apart from the one inboxkit's `authenticator` uses, so that the example
 * proves the two agree: SHA-1, 6 digits, 30 s steps, one step of clock skew
 * either way, and a code never accepted twice (RFC 6238 §5.2).
 */
import { createHmac, randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { escapeHtml } from './html.ts';
import { form, p, page } from './pages.ts';

/** What a page handler returns (the app's reply shape). */
interface Reply {
  status: number;
  body: string;
  type?: string;
  headers?: Record<string, string | string[]>;
}

/** The part of a request a handler reads. */
interface RequestContext {
  url: URL;
  form: URLSearchParams;
  email: string | undefined;
}

/** What the two-factor pages need from the app. */
export interface TwoFactorDeps {
  /** The app's clock (milliseconds). */
  now: () => number;
  /** The issuer shown in the authenticator app. */
  issuer: string;
  /** An HTML reply. */
  html: (status: number, body: string) => Reply;
  /** A redirect reply. */
  redirect: (location: string) => Reply;
  /** Starts the session once both factors passed, and goes to the dashboard with `notice`. */
  startSession: (email: string, notice: string) => Reply;
}

/** The two-factor part of the app. */
export interface TwoFactor {
  /** The pages: enrolment (`/account/two-factor`) and the sign-in challenge (`/signin/two-factor`). */
  routes: Record<string, (ctx: RequestContext) => Reply | Promise<Reply>>;
  /** For a user with two-factor on: the redirect to the code prompt instead of a session; otherwise `undefined`. */
  challenge(email: string, notice: string): Reply | undefined;
}

const PERIOD_SECONDS = 30;
const DIGITS = 6;
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const MAX_ATTEMPTS = 5;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

interface Enrolment {
  secret: Buffer;
  /** The last time step whose code was accepted: no code of it or before is accepted again. */
  lastStep: number;
}

interface Challenge {
  email: string;
  notice: string;
  expiresAt: number;
  attemptsLeft: number;
}

function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + BASE32[(value << (5 - bits)) & 31] : out;
}

/** RFC 4226 HOTP of one counter. */
function hotp(secret: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** DIGITS).padStart(DIGITS, '0');
}

/** The step a code belongs to (current, one before or one after), or `null`; a step at or before `lastStep` never matches. */
function matchStep(secret: Buffer, code: string, nowMs: number, lastStep: number): number | null {
  const current = Math.floor(nowMs / 1000 / PERIOD_SECONDS);
  for (const step of [current, current - 1, current + 1]) {
    if (step > lastStep && hotp(secret, step) === code) return step;
  }
  return null;
}

function codeField(): { name: string; label: string; type: 'text'; attributes: string } {
  return { name: 'code', label: 'Authenticator code', type: 'text', attributes: 'inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6"' };
}

/** Creates the two-factor pages and the sign-in challenge, with their own in-memory state. */
export function createTwoFactor(deps: TwoFactorDeps): TwoFactor {
  const enrolments = new Map<string, Enrolment>();
  const pendingSecrets = new Map<string, Buffer>();
  const challenges = new Map<string, Challenge>();

  const enrolPage = async (email: string, status = 200, error?: string): Promise<Reply> => {
    let secret = pendingSecrets.get(email);
    if (secret === undefined) {
      secret = randomBytes(20);
      pendingSecrets.set(email, secret);
    }
    const key = base32(secret);
    const uri = `otpauth://totp/${encodeURIComponent(deps.issuer)}:${encodeURIComponent(email)}?secret=${key}&issuer=${encodeURIComponent(deps.issuer)}&algorithm=SHA1&digits=${DIGITS}&period=${PERIOD_SECONDS}`;
    const qr = await QRCode.toDataURL(uri, { margin: 2, scale: 5, errorCorrectionLevel: 'M' });
    return deps.html(status, page({
      title: 'Set up two-factor sign-in',
      signedIn: true,
      ...(error !== undefined ? { error } : {}),
      body: [
        p('Scan this QR code with your authenticator app, then enter the 6-digit code it shows.'),
        `<img src="${qr}" alt="QR code for your authenticator app" width="220" height="220">`,
        `<p>Can't scan it? Enter this key: <code id="setup-key">${escapeHtml(key.replace(/(.{4})(?=.)/g, '$1 '))}</code></p>`,
        form('/account/two-factor', [codeField()], 'Turn on two-factor sign-in'),
      ].join('\n'),
    }));
  };

  return {
    challenge(email, notice) {
      if (!enrolments.has(email)) return undefined;
      const token = randomBytes(18).toString('base64url');
      challenges.set(token, { email, notice, expiresAt: deps.now() + CHALLENGE_TTL_MS, attemptsLeft: MAX_ATTEMPTS });
      return deps.redirect(`/signin/two-factor?token=${token}`);
    },

    routes: {
      'GET /account/two-factor': (ctx) => {
        if (!ctx.email) return deps.redirect('/signin');
        if (enrolments.has(ctx.email)) return deps.html(200, page({ title: 'Two-factor sign-in', signedIn: true, notice: 'Two-factor sign-in is on', body: p('Each sign-in asks for a code from your authenticator app.') }));
        return enrolPage(ctx.email);
      },
      'POST /account/two-factor': (ctx) => {
        if (!ctx.email) return deps.redirect('/signin');
        const secret = pendingSecrets.get(ctx.email);
        if (secret === undefined) return deps.redirect('/account/two-factor');
        const step = matchStep(secret, (ctx.form.get('code') ?? '').trim(), deps.now(), -1);
        if (step === null) return enrolPage(ctx.email, 400, 'That code is not right. Enter the code your authenticator app shows now.');
        enrolments.set(ctx.email, { secret, lastStep: step });
        pendingSecrets.delete(ctx.email);
        return deps.html(200, page({ title: 'Two-factor sign-in', signedIn: true, notice: 'Two-factor sign-in is on', body: p('From now on, each sign-in asks for a code from your authenticator app.') }));
      },
      'GET /signin/two-factor': (ctx) => {
        const token = ctx.url.searchParams.get('token') ?? '';
        const pending = challenges.get(token);
        if (!pending || pending.expiresAt <= deps.now()) return deps.redirect('/signin');
        return deps.html(200, page({
          title: 'Two-factor sign-in',
          body: p('Enter the 6-digit code from your authenticator app.') + form('/signin/two-factor', [{ name: 'token', label: '', type: 'hidden', value: token }, codeField()], 'Verify'),
        }));
      },
      'POST /signin/two-factor': (ctx) => {
        const token = ctx.form.get('token') ?? '';
        const pending = challenges.get(token);
        const enrolment = pending ? enrolments.get(pending.email) : undefined;
        if (!pending || !enrolment || pending.expiresAt <= deps.now() || pending.attemptsLeft <= 0) {
          challenges.delete(token);
          return deps.html(400, page({ title: 'Two-factor sign-in', error: 'This sign-in has expired or was tried too often. Sign in again.', body: p('') }));
        }
        const step = matchStep(enrolment.secret, (ctx.form.get('code') ?? '').trim(), deps.now(), enrolment.lastStep);
        if (step === null) {
          pending.attemptsLeft--;
          return deps.html(400, page({
            title: 'Two-factor sign-in',
            error: 'That code is not right, or was used already. Enter the code your authenticator app shows now.',
            body: form('/signin/two-factor', [{ name: 'token', label: '', type: 'hidden', value: token }, codeField()], 'Verify'),
          }));
        }
        enrolment.lastStep = step;
        challenges.delete(token);
        return deps.startSession(pending.email, pending.notice);
      },
    },
  };
}
