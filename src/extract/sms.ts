/**
 * What SMS adds to code extraction: the origin-bound line of WebOTP and iOS
 * (`@app.example #123456`, optionally `%parent.example`), which names the
 * code outright as the message's last line. Everything else an SMS carries
 * (a brand prefix, Android's `<#>` and app hash, a code before its words) the
 * general extraction reads already.
 *
 * @packageDocumentation
 */
import type { OtpOptions } from './otp-candidates.ts';

/** The origin-bound line: `@host #code` with an optional ` %host` (WebOTP's format). */
const ORIGIN_BOUND = /^@([a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?) #([A-Za-z0-9]{3,12})(?: %[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)?$/i;

/** Whether a code satisfies the caller's `length`, `pattern` and `alphanumeric` options. */
function fits(code: string, options: OtpOptions): boolean {
  const { length, pattern, alphanumeric } = options;
  if (!alphanumeric && !/^\d+$/.test(code)) return false;
  if (pattern && !new RegExp(pattern.source, pattern.flags.replace('g', '')).test(code)) return false;
  if (length === undefined) return true;
  const [min, max] = typeof length === 'number' ? [length, length] : Array.isArray(length) ? length : [(length as { min?: number }).min ?? 0, (length as { max?: number }).max ?? Infinity];
  return code.length >= (min as number) && code.length <= (max as number);
}

/** An origin-bound last line: its code, the host it is bound to, and the line as written. */
export interface OriginBound { code: string; host: string; line: string }

/**
 * The origin-bound last line of a text (`@app.example #123456`), when it has
 * one whose code fits the options; null otherwise (the general extraction
 * then decides).
 */
export function originBoundLine(text: string | null, options: OtpOptions = {}): OriginBound | null {
  if (text === null || text.length > 64 * 1024) return null;
  const last = text.trimEnd().split(/\r?\n/).pop()?.trim() ?? '';
  const match = ORIGIN_BOUND.exec(last);
  return match?.[1] && match[2] && fits(match[2], options) ? { code: match[2], host: match[1], line: last } : null;
}

/**
 * The code of a text's origin-bound last line, when it has one that fits the
 * options; null otherwise (the general extraction then decides).
 */
export function originBoundCode(text: string | null, options: OtpOptions = {}): string | null {
  return originBoundLine(text, options)?.code ?? null;
}
