/**
 * {@link Authenticator}: the `authenticator` fixture, a simulated
 * authenticator app for one test. `enroll()` reads an enrolment from the page
 * (a QR code, a shown secret or URI) or from a string, and returns an
 * {@link AuthenticatorDevice} whose `code()` gives codes the app accepts.
 *
 * @packageDocumentation
 */
import { test as base } from '@playwright/test';
import type { Locator, TestInfo } from '@playwright/test';
import { captureCallSite } from '../../errors/call-site.ts';
import { AuthenticatorDevice, atSite, stepOptions, systemClock } from './device.ts';
import type { AuthenticatorClock } from './device.ts';
import { AuthenticatorError, findOtpSourceInText, maskUri, parseOtpSource } from './otp-params.ts';
import type { OtpParameters } from './otp-params.ts';
import { decodeQrPng } from './qr-decode.ts';

/** Options of `enroll()`. */
export interface EnrollOptions {
  /**
   * The clock the device's codes follow; see {@link AuthenticatorClock}.
   * @defaultValue the test process's clock (`Date.now()`), which a server checking the codes shares
   */
  clock?: AuthenticatorClock;
  /**
   * Seconds a code from `code()` stays valid at least; with fewer left in
   * the current time step, `code()` waits for the next one.
   * @defaultValue 5
   */
  minRemaining?: number;
  /**
   * The app under test accepts the same code more than once (many do, within
   * the step: Directus, for one). With `true`, `code()` gives the current
   * step's code again instead of waiting up to a period for the next step, so
   * a test that signs in twice does not wait. Leave it off for an app that
   * follows RFC 6238 §5.2 and refuses a code used once: the second sign-in
   * would then fail.
   * @defaultValue false
   */
  allowCodeReuse?: boolean;
  /**
   * Milliseconds to wait for a locator's element to appear.
   * @defaultValue Playwright's action timeout
   */
  timeout?: number;
}

/** What an enrolment can be read from: a locator of the QR code (or of text showing the secret or URI), an `otpauth://` URI, or a base32 secret. */
export type EnrollSource = Locator | string;

/** The default `minRemaining`: long enough to type a code and submit it on a slow CI machine. */
export const DEFAULT_MIN_REMAINING = 5;

/** What the page showed, as `locator.evaluate` reports it. */
interface ElementFacts {
  tag: string;
  text: string;
  value: string | null;
  width: number;
  height: number;
  images: number;
  src: string | null;
}

function isLocator(value: unknown): value is Locator {
  const candidate = value as Partial<Locator> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.screenshot === 'function' && typeof candidate.evaluate === 'function' && typeof candidate.page === 'function';
}

function shorten(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A canonical `otpauth://` URI for parameters that came without one (a bare secret). */
function buildUri(params: OtpParameters): string {
  const label = [params.issuer, params.account].filter((part) => part !== undefined).map((part) => encodeURIComponent(part!)).join(':');
  const query = new URLSearchParams({ secret: params.secret, ...(params.issuer !== undefined ? { issuer: params.issuer } : {}), algorithm: params.algorithm, digits: String(params.digits) });
  if (params.type === 'totp') query.set('period', String(params.period));
  else query.set('counter', String(params.counter));
  return `otpauth://${params.type}/${label}?${query.toString()}`;
}

async function elementFacts(locator: Locator, timeout: number | undefined): Promise<ElementFacts> {
  return locator.evaluate(async (element) => {
    if (element instanceof HTMLImageElement && !element.complete) await element.decode().catch(() => {});
    const rect = element.getBoundingClientRect();
    const field = element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement ? element.value : null;
    const src = element instanceof HTMLImageElement ? element.currentSrc || element.src : null;
    return {
      tag: element.tagName.toLowerCase(),
      text: ((element instanceof HTMLElement ? element.innerText : element.textContent) ?? '').slice(0, 4096),
      value: field === null ? null : field.slice(0, 4096),
      width: Math.round(rect.width),
      height: Math.round(rect.height),
      images: element.querySelectorAll('img, canvas, svg').length,
      src: src === null ? null : src.slice(0, 120),
    };
  }, undefined, timeout === undefined ? {} : { timeout });
}

function describeFacts(facts: ElementFacts): string {
  const parts = [`a <${facts.tag}> of ${facts.width}×${facts.height} px`];
  if (facts.src !== null) parts.push(`src ${JSON.stringify(shorten(facts.src, 60))}`);
  if (facts.value !== null) parts.push(`value ${JSON.stringify(shorten(facts.value))}`);
  else if (facts.text.trim() !== '') parts.push(`text ${JSON.stringify(shorten(facts.text))}`);
  else parts.push('no text');
  if (facts.images > 0 && facts.tag !== 'svg') parts.push(`${facts.images} img/canvas/svg inside`);
  return parts.join(', ');
}

/**
 * A simulated authenticator app for one test: the `authenticator` fixture.
 *
 * @example
 * ```ts
 * test('signs in with two factors', async ({ page, authenticator }) => {
 *   await page.goto('/settings/two-factor');
 *   const device = await authenticator.enroll(page.getByRole('img', { name: 'QR code' }));
 *   await page.getByLabel('Code').fill(await device.code());
 * });
 * ```
 */
export class Authenticator {
  readonly #testInfo: TestInfo;
  readonly #devices: AuthenticatorDevice[] = [];

  /** @internal Made by the fixture. */
  constructor(testInfo: TestInfo) {
    this.#testInfo = testInfo;
  }

  /** The devices enrolled so far in this test, in order. */
  get devices(): readonly AuthenticatorDevice[] {
    return [...this.#devices];
  }

  /**
   * Enrols a device, as a report step at the caller's line. `source` is a
   * locator of the QR code (an `img`, `canvas` or inline `svg`, screenshotted
   * and decoded), a locator whose text or value is the secret or the
   * `otpauth://` URI, the URI itself, or a base32 secret. The URI's issuer,
   * account, algorithm (SHA1, SHA256, SHA512), digits (6–8), period and
   * counter are kept; what it leaves out takes RFC 6238's defaults.
   */
  async enroll(source: EnrollSource, options: EnrollOptions = {}): Promise<AuthenticatorDevice> {
    const site = captureCallSite(Authenticator.prototype.enroll);
    const from = isLocator(source) ? source.toString() : typeof source === 'string' ? (/^\s*otpauth:/i.test(source) ? 'an otpauth:// URI' : 'a secret') : 'an unsupported value';
    return base.step(`enrol authenticator from ${from}`, atSite(site, async () => {
      const { params, uri } = await this.#read(source, options);
      const device = new AuthenticatorDevice({
        params,
        uri: uri ?? buildUri(params),
        clock: options.clock ?? systemClock,
        minRemaining: options.minRemaining ?? DEFAULT_MIN_REMAINING,
        allowCodeReuse: options.allowCodeReuse ?? false,
      });
      await base.step(`enrolled ${device.describe()}`, async () => {}, { box: true });
      this.#devices.push(device);
      return device;
    }), stepOptions(site));
  }

  async #read(source: EnrollSource, options: EnrollOptions): Promise<{ params: OtpParameters; uri: string | undefined }> {
    if (typeof source === 'string') return { params: parseOtpSource(source), uri: /^\s*otpauth:/i.test(source) ? source.trim() : undefined };
    if (!isLocator(source)) {
      const given = source === null ? 'null' : typeof (source as { locator?: unknown }).locator === 'function' ? 'a page or frame, not a locator' : typeof source;
      throw new AuthenticatorError(`authenticator.enroll() was given ${given}; pass a locator of the QR code (page.getByRole('img', …)), an otpauth:// URI or a base32 secret.`);
    }
    const facts = await elementFacts(source, options.timeout);
    const isPicture = ['img', 'canvas', 'svg', 'picture'].includes(facts.tag);
    if (!isPicture) {
      const found = findOtpSourceInText(facts.value ?? facts.text);
      if (found !== null) return { params: parseOtpSource(found, `the text of ${source.toString()}`), uri: /^otpauth:/i.test(found) ? found : undefined };
      if (facts.images === 0) {
        throw new AuthenticatorError(`authenticator: ${source.toString()} shows no QR code, otpauth:// URI or base32 secret: it is ${describeFacts(facts)}. Point the locator at the QR code (its img, canvas or svg) or at the text of the secret.`);
      }
    }
    const text = await this.#decode(source, facts, options);
    if (!/^otpauth:/i.test(text.trim()) && findOtpSourceInText(text) === null) {
      throw new AuthenticatorError(`authenticator: the QR code of ${source.toString()} reads ${JSON.stringify(shorten(maskUri(text)))}, which is not an otpauth:// URI. Point the locator at the two-factor enrolment QR code.`);
    }
    return { params: parseOtpSource(text, `the QR code of ${source.toString()}`), uri: /^\s*otpauth:/i.test(text) ? text.trim() : undefined };
  }

  async #decode(locator: Locator, facts: ElementFacts, options: EnrollOptions): Promise<string> {
    const png = await locator.screenshot({ animations: 'disabled', caret: 'hide', ...(options.timeout !== undefined ? { timeout: options.timeout } : {}) });
    const text = await decodeQrPng(png, `the screenshot of ${locator.toString()}`);
    if (text !== null) return text;
    await this.#testInfo.attach('authenticator: no QR code found', { body: png, contentType: 'image/png' });
    throw new AuthenticatorError(
      `authenticator: found no QR code in the screenshot of ${locator.toString()}: it is ${describeFacts(facts)} (the screenshot is attached as "authenticator: no QR code found"). Point the locator at the QR code, and wait until it is drawn.`,
    );
  }
}

/** The test-scoped `authenticator` fixture: one {@link Authenticator} per test (Playwright requires the destructuring pattern, even empty). */
// eslint-disable-next-line no-empty-pattern
export async function authenticatorFixture({}: object, use: (value: Authenticator) => Promise<void>, testInfo: TestInfo): Promise<void> {
  await use(new Authenticator(testInfo));
}
