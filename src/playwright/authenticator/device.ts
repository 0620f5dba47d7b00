/**
 * {@link AuthenticatorDevice}: what `authenticator.enroll()` returns, an
 * authenticator app holding one enrolment. Its codes come from `otpauth`
 * (RFC 4226 / RFC 6238); when to hand one out is {@link planCode}'s rule.
 *
 * @packageDocumentation
 */
import { inspect } from 'node:util';
import { test as base } from '@playwright/test';
import { HOTP, Secret, TOTP } from 'otpauth';
import { atCallSite, callLocation, captureCallSite } from '../../errors/call-site.ts';
import type { CallLocation, CallSite } from '../../errors/call-site.ts';
import { AuthenticatorError, maskSecret } from './otp-params.ts';
import type { OtpAlgorithm, OtpParameters } from './otp-params.ts';
import { planCode } from './schedule.ts';

/**
 * The time a device reads. The default is the test process's own clock
 * (`Date.now()` and timers), which is what a server checking the codes uses.
 * Tests inject one to control time; an app that checks codes in the browser
 * under `page.clock` can be followed with
 * `{ now: () => page.evaluate(() => Date.now()), sleep: (ms) => page.clock.runFor(ms) }`.
 */
export interface AuthenticatorClock {
  /** Now, in milliseconds since the epoch. */
  now(): number | Promise<number>;
  /** Resolves once `ms` milliseconds have passed on this clock. */
  sleep(ms: number): Promise<void>;
}

/** Options of `code()`. */
export interface CodeOptions {
  /**
   * Seconds the code must stay valid at least: with fewer left in the
   * current time step, `code()` waits for the next step. Between 0 and the period.
   * @defaultValue the enrolment's `minRemaining` (5 seconds unless set)
   */
  minRemaining?: number;
  /**
   * The app accepts the same code more than once: give the current step's
   * code again rather than wait for the next step. For this call only.
   * @defaultValue the enrolment's `allowCodeReuse` (`false` unless set)
   */
  allowCodeReuse?: boolean;
}

/** What a device is made from. @internal */
export interface DeviceInit {
  params: OtpParameters;
  /** The URI as enrolled, or one built from the parameters. */
  uri: string;
  clock: AuthenticatorClock;
  minRemaining: number;
  /** Whether a step's code may be given again (the app accepts a code twice). */
  allowCodeReuse?: boolean;
}

/** How many times `code()` re-reads the clock after a sleep before it calls the clock broken. */
const MAX_SLEEPS = 8;

/** The process's own clock. */
export const systemClock: AuthenticatorClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The report step's options: located at the spec's line when known, else boxed. */
export function stepOptions(site: CallSite): { box?: true; location?: CallLocation } {
  const location = callLocation(site);
  return location !== undefined ? { location } : { box: true };
}

/** `body`, whose inboxkit errors carry the caller's stack (`site`). */
export function atSite<T>(site: CallSite, body: () => Promise<T>): () => Promise<T> {
  return async () => {
    try {
      return await body();
    } catch (error) {
      throw atCallSite(error, site);
    }
  };
}

/** Checks a `minRemaining` against the period. */
export function checkMinRemaining(minRemaining: number, period: number): number {
  if (!Number.isFinite(minRemaining) || minRemaining < 0 || minRemaining >= period) {
    throw new AuthenticatorError(`authenticator: minRemaining ${minRemaining} is out of range for a ${period} s period. Give a number of seconds from 0 to less than the period.`);
  }
  return minRemaining;
}

/**
 * One enrolment in a simulated authenticator app. `code()` gives a code the
 * app under test accepts; the secret is readable (`device.secret`) but is
 * never printed whole (`console.log(device)` and report steps mask it).
 *
 * @example
 * ```ts
 * const device = await authenticator.enroll(page.getByRole('img', { name: 'QR code' }));
 * await page.getByLabel('Authenticator code').fill(await device.code());
 * ```
 */
export class AuthenticatorDevice {
  readonly #params: OtpParameters;
  readonly #secret: Secret;
  readonly #uri: string;
  readonly #clock: AuthenticatorClock;
  readonly #minRemaining: number;
  readonly #allowCodeReuse: boolean;
  #lastStep: number | undefined;
  #counter: number;

  /** @internal Made by `authenticator.enroll()`. */
  constructor(init: DeviceInit) {
    this.#params = init.params;
    this.#secret = Secret.fromBase32(init.params.secret);
    this.#uri = init.uri;
    this.#clock = init.clock;
    this.#minRemaining = init.params.type === 'totp' ? checkMinRemaining(init.minRemaining, init.params.period) : init.minRemaining;
    this.#counter = init.params.counter;
    this.#allowCodeReuse = init.allowCodeReuse ?? false;
  }

  /** `totp` (time-based) or `hotp` (counter-based). */
  get type(): 'totp' | 'hotp' {
    return this.#params.type;
  }
  /** The shared secret, base32. Handle it as a secret: it is never printed whole by inboxkit. */
  get secret(): string {
    return this.#params.secret;
  }
  /** The `otpauth://` URI enrolled (built from the parameters when a bare secret was given). */
  get uri(): string {
    return this.#uri;
  }
  /** The issuer, or `undefined`. */
  get issuer(): string | undefined {
    return this.#params.issuer;
  }
  /** The account name, or `undefined`. */
  get account(): string | undefined {
    return this.#params.account;
  }
  /** HMAC algorithm. */
  get algorithm(): OtpAlgorithm {
    return this.#params.algorithm;
  }
  /** Digits per code. */
  get digits(): number {
    return this.#params.digits;
  }
  /** Seconds per time step (TOTP). */
  get period(): number {
    return this.#params.period;
  }
  /** HOTP: the counter of the next code `code()` gives. TOTP: 0. */
  get counter(): number {
    return this.#counter;
  }

  /** A short description with the secret masked: `ACME (alice@example.com), TOTP SHA1, 6 digits, 30 s, secret JBSW…(16 characters)`. */
  describe(): string {
    const who = [this.issuer, this.account === undefined ? undefined : this.issuer === undefined ? this.account : `(${this.account})`].filter(Boolean).join(' ') || '(no issuer or account)';
    const kind = this.type === 'totp' ? `TOTP ${this.algorithm}, ${this.digits} digits, ${this.period} s` : `HOTP ${this.algorithm}, ${this.digits} digits, counter ${this.#counter}`;
    return `${who}, ${kind}, secret ${maskSecret(this.secret)}`;
  }

  /** The code for one HOTP counter (a TOTP code is the one of its time step). */
  #generate(counter: number): string {
    return HOTP.generate({ secret: this.#secret, algorithm: this.algorithm, digits: this.digits, counter });
  }

  /**
   * The code at a given time (TOTP), without waiting and without marking it
   * used: e.g. to check what a code was at a moment, or to try an old one.
   */
  codeAt(time: Date | number): string {
    if (this.type !== 'totp') {
      throw new AuthenticatorError('authenticator: codeAt() needs a time-based (TOTP) enrolment; this one is counter-based (HOTP). Use code(), which gives the code of the next counter value.');
    }
    const ms = typeof time === 'number' ? time : time.getTime();
    if (!Number.isFinite(ms) || ms < 0) throw new AuthenticatorError(`authenticator: codeAt() was given ${String(time)}, which is not a valid time. Pass a Date or milliseconds since the epoch.`);
    return TOTP.generate({ secret: this.#secret, algorithm: this.algorithm, digits: this.digits, period: this.period, timestamp: ms });
  }

  /**
   * A code the app accepts, as a report step at the caller's line. TOTP: the
   * current step's code when at least `minRemaining` seconds of it are left
   * and this device has not given it before (or `allowCodeReuse` is set);
   * otherwise it waits for the next step: the first code less than
   * `minRemaining`, each further one at most a period, so two codes in a row
   * wait at most `minRemaining` plus one period. HOTP: the next counter's code.
   */
  async code(options: CodeOptions = {}): Promise<string> {
    const site = captureCallSite(AuthenticatorDevice.prototype.code);
    const minRemaining = options.minRemaining === undefined ? this.#minRemaining : this.type === 'totp' ? checkMinRemaining(options.minRemaining, this.period) : options.minRemaining;
    const title = `authenticator code: ${this.issuer ?? this.account ?? 'device'}`;
    return base.step(title, atSite(site, async () => {
      if (this.type === 'hotp') {
        const counter = this.#counter++;
        const code = this.#generate(counter);
        await base.step(`code ${code} (counter ${counter})`, async () => {}, { box: true });
        return code;
      }
      return this.#timeCode(minRemaining, options.allowCodeReuse ?? this.#allowCodeReuse);
    }), stepOptions(site));
  }

  async #timeCode(minRemaining: number, allowReuse: boolean): Promise<string> {
    for (let sleeps = 0; ; sleeps++) {
      const nowMs = await this.#clock.now();
      if (typeof nowMs !== 'number' || !Number.isFinite(nowMs) || nowMs < 0) {
        throw new AuthenticatorError(`authenticator: the clock's now() gave ${String(nowMs)}, not a time. It must return milliseconds since the epoch (like Date.now()).`);
      }
      const plan = planCode({ nowMs, period: this.period, minRemaining, lastStep: this.#lastStep, allowReuse });
      if (plan.waitMs === 0) {
        const again = plan.step === this.#lastStep ? ', given before: allowCodeReuse' : '';
        this.#lastStep = plan.step;
        const code = this.#generate(plan.step);
        const left = Math.round(((plan.step + 1) * this.period * 1000 - nowMs) / 1000);
        await base.step(`code ${code} (valid ${left} s more${again})`, async () => {}, { box: true });
        return code;
      }
      if (sleeps >= MAX_SLEEPS) {
        throw new AuthenticatorError(`authenticator: the clock did not reach the next time step after ${MAX_SLEEPS} waits (it reads ${new Date(nowMs).toISOString()}). An injected clock's sleep(ms) must advance its now() by ms.`);
      }
      const used = !allowReuse && this.#lastStep !== undefined && Math.floor(nowMs / (this.period * 1000)) <= this.#lastStep;
      const why = used ? 'this step\'s code was given already' : `fewer than ${minRemaining} s left in this step`;
      await base.step(`wait ${(plan.waitMs / 1000).toFixed(1)} s for the next time step (${why})`, () => this.#clock.sleep(plan.waitMs), { box: true });
    }
  }

  /** JSON shows the enrolment with the secret masked. */
  toJSON(): Record<string, unknown> {
    return { type: this.type, issuer: this.issuer, account: this.account, algorithm: this.algorithm, digits: this.digits, period: this.period, counter: this.#counter, secret: maskSecret(this.secret) };
  }

  /** `String(device)` and template literals show the enrolment with the secret masked, as `console.log` does. */
  toString(): string {
    return `AuthenticatorDevice { ${this.describe()} }`;
  }

  /** `console.log(device)` shows the enrolment with the secret masked. */
  [inspect.custom](): string {
    return this.toString();
  }
}
