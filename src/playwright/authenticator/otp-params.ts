/**
 * What an authenticator app reads from an enrolment: an `otpauth://` URI (the
 * Key URI Format that Google Authenticator defined and every app follows) or a
 * bare base32 secret, checked field by field so that a bad one is named.
 * The HMAC and the base32 decoding are `otpauth`'s; this file decides what is
 * accepted and says why not.
 *
 * @packageDocumentation
 */
import { InboxkitError } from '../../client/index.ts';

/** Thrown when an enrolment cannot be read: no QR code, a malformed URI, an unsupported parameter. */
export class AuthenticatorError extends InboxkitError {
  override name = 'AuthenticatorError';
}

/** The HMAC algorithms authenticator apps support (RFC 6238 names these three). */
export type OtpAlgorithm = 'SHA1' | 'SHA256' | 'SHA512';

/** The parameters of one enrolment, as an authenticator app keeps them. */
export interface OtpParameters {
  /** `totp` (time-based, RFC 6238) or `hotp` (counter-based, RFC 4226). */
  type: 'totp' | 'hotp';
  /** The shared secret, base32 (upper case, no padding, no spaces). */
  secret: string;
  /** Who issued it (the `issuer` parameter, else the label's prefix), or `undefined`. */
  issuer: string | undefined;
  /** The account name (the label after `Issuer:`), or `undefined`. */
  account: string | undefined;
  /** HMAC algorithm. @defaultValue 'SHA1' */
  algorithm: OtpAlgorithm;
  /** Digits per code, 6 to 8. @defaultValue 6 */
  digits: number;
  /** Seconds per time step (TOTP). @defaultValue 30 */
  period: number;
  /** The next counter value (HOTP); 0 for TOTP. */
  counter: number;
}

/** RFC 6238's defaults, which apply to whatever a URI leaves out. */
export const OTP_DEFAULTS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;

const ALGORITHMS: Record<string, OtpAlgorithm> = { SHA1: 'SHA1', 'SHA-1': 'SHA1', SHA256: 'SHA256', 'SHA-256': 'SHA256', SHA512: 'SHA512', 'SHA-512': 'SHA512' };
/** Longest period accepted: an hour (a longer one is a typo, and `code()` would wait that long). */
const MAX_PERIOD = 3600;
/** Longest text accepted as a URI or secret: far above any real enrolment, so nothing unbounded is parsed. */
const MAX_SOURCE_LENGTH = 4096;

/**
 * The secret with all but its first four characters hidden, for messages and
 * report steps: `JBSW…(16 characters)`.
 */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, 4)}…(${secret.length} characters)`;
}

/** A URI with its `secret` parameter masked, for error messages. */
export function maskUri(uri: string): string {
  return uri.replace(/([?&]secret=)([^&#]*)/gi, (_, key: string, value: string) => `${key}${maskSecret(decodeURIComponentSafe(value))}`);
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * A base32 secret as authenticator apps accept it: case-insensitive, spaces
 * and dashes (used to group it for reading) and `=` padding ignored.
 * Returns `null` when it is not base32.
 */
export function normaliseSecret(text: string): string | null {
  const secret = text.replace(/[\s-]+/g, '').replace(/=+$/, '').toUpperCase();
  return /^[A-Z2-7]+$/.test(secret) ? secret : null;
}

function fail(uri: string, problem: string, advice: string): never {
  throw new AuthenticatorError(`authenticator: ${problem} in ${JSON.stringify(maskUri(uri))}. ${advice}`);
}

function integerParam(uri: string, params: URLSearchParams, name: string, range: [number, number], fallback: number | undefined): number {
  const raw = params.get(name);
  if (raw === null) {
    if (fallback === undefined) fail(uri, `the "${name}" parameter is missing`, `An otpauth://hotp URI must give its counter (e.g. &${name}=0).`);
    return fallback;
  }
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < range[0] || value > range[1]) {
    fail(uri, `${name}=${JSON.stringify(raw)} is not supported`, `${name} must be a whole number from ${range[0]} to ${range[1]}.`);
  }
  return value;
}

function readAlgorithm(uri: string, params: URLSearchParams): OtpAlgorithm {
  const raw = params.get('algorithm');
  if (raw === null) return OTP_DEFAULTS.algorithm;
  const algorithm = ALGORITHMS[raw.toUpperCase()];
  if (algorithm === undefined) fail(uri, `the algorithm ${JSON.stringify(raw)} is not supported`, 'Authenticator apps support SHA1, SHA256 and SHA512 (RFC 6238); use one of them.');
  return algorithm;
}

/** The label (`Issuer:account`, percent-encoded) split into issuer and account. */
function readLabel(uri: string, url: URL): { labelIssuer: string | undefined; account: string | undefined } {
  let label: string;
  try {
    label = decodeURIComponent(url.pathname.replace(/^\/+/, ''));
  } catch {
    fail(uri, 'the label is not valid percent-encoding', 'Encode the label with encodeURIComponent().');
  }
  const colon = label.indexOf(':');
  const labelIssuer = colon >= 0 ? label.slice(0, colon).trim() : undefined;
  const account = (colon >= 0 ? label.slice(colon + 1) : label).trim();
  return { labelIssuer: labelIssuer || undefined, account: account || undefined };
}

/**
 * Reads an `otpauth://totp/…` or `otpauth://hotp/…` URI; throws an
 * {@link AuthenticatorError} that names the field when it is malformed.
 */
export function parseOtpAuthUri(uri: string): OtpParameters {
  const text = uri.trim();
  if (text.length > MAX_SOURCE_LENGTH) fail(text.slice(0, 60) + '…', `the URI is ${text.length} characters long`, `An enrolment URI is at most ${MAX_SOURCE_LENGTH} characters; check what was passed.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(text, 'this is not a URI', 'Pass an otpauth://totp/Issuer:account?secret=…&issuer=… URI, a base32 secret, or a locator of the QR code.');
  }
  if (url.protocol !== 'otpauth:') fail(text, `the scheme is "${url.protocol}", not "otpauth:"`, 'Pass the otpauth:// URI the app encodes in its QR code.');
  const type = url.hostname.toLowerCase();
  if (type !== 'totp' && type !== 'hotp') fail(text, `the type is "${url.hostname}", not "totp" or "hotp"`, 'The URI must start with otpauth://totp/ or otpauth://hotp/.');
  const params = url.searchParams;
  const rawSecret = params.get('secret');
  if (rawSecret === null || rawSecret.trim() === '') fail(text, 'the "secret" parameter is missing', 'The URI must carry the shared secret as &secret=<base32>.');
  const secret = normaliseSecret(rawSecret);
  if (secret === null) fail(text, 'the secret is not base32 (letters A–Z and digits 2–7)', 'Check that the whole secret was copied.');
  const { labelIssuer, account } = readLabel(text, url);
  const issuerParam = params.get('issuer')?.trim();
  return {
    type,
    secret,
    issuer: issuerParam || labelIssuer,
    account,
    algorithm: readAlgorithm(text, params),
    digits: integerParam(text, params, 'digits', [6, 8], OTP_DEFAULTS.digits),
    period: type === 'totp' ? integerParam(text, params, 'period', [1, MAX_PERIOD], OTP_DEFAULTS.period) : OTP_DEFAULTS.period,
    counter: type === 'hotp' ? integerParam(text, params, 'counter', [0, Number.MAX_SAFE_INTEGER], undefined) : 0,
  };
}

/**
 * Reads a source string: an `otpauth://` URI, or a base32 secret (TOTP with
 * RFC 6238's defaults). `what` names where the text came from, for the error.
 */
export function parseOtpSource(text: string, what = 'the string'): OtpParameters {
  const trimmed = text.trim();
  if (/^otpauth:/i.test(trimmed)) return parseOtpAuthUri(trimmed);
  const secret = trimmed.length <= MAX_SOURCE_LENGTH ? normaliseSecret(trimmed) : null;
  if (secret === null) {
    const shown = trimmed.length > 80 ? `${trimmed.slice(0, 77)}…` : trimmed;
    throw new AuthenticatorError(
      `authenticator: ${what} ${JSON.stringify(shown)} is neither an otpauth:// URI nor a base32 secret (letters A–Z and digits 2–7). Pass the URI or the secret the app shows, or a locator of its QR code.`,
    );
  }
  return { type: 'totp', secret, issuer: undefined, account: undefined, ...OTP_DEFAULTS, counter: 0 };
}

/**
 * Finds an enrolment in the visible text of an element: an `otpauth://` URI
 * in it, else a base32 secret (possibly grouped by spaces: `JBSW Y3DP …`),
 * else `null`.
 */
export function findOtpSourceInText(text: string): string | null {
  const uri = /otpauth:\/\/[^\s"'<>]+/i.exec(text);
  if (uri) return uri[0];
  // The whole text: one word in one case, or upper-case groups ("JBSW Y3DP EHPK 3PXP"); never prose.
  const trimmed = text.trim();
  if (/^(?:[A-Z2-7]+|[a-z2-7]+)$/.test(trimmed) || /^[A-Z2-7]+(?:[\s-]+[A-Z2-7]+)+$/.test(trimmed)) {
    const whole = normaliseSecret(trimmed);
    if (whole !== null && whole.length >= 16) return whole;
  }
  // Upper-case groups, e.g. "Secret key: JBSW Y3DP EHPK 3PXP"; the longest run of at least 16 characters.
  let best: string | null = null;
  for (const match of text.matchAll(/[A-Z2-7]{2,}(?:[ -][A-Z2-7]{2,})*/g)) {
    const candidate = match[0].replace(/[ -]/g, '');
    if (candidate.length >= 16 && (best === null || candidate.length > best.length)) best = candidate;
  }
  return best;
}
