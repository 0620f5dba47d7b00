/**
 * What SMS adds to code extraction: the origin-bound line of WebOTP and iOS
 * (`@app.example #123456`, optionally `%parent.example`), which names the
 * code outright as the message's last line; and the only number of a short
 * text that came with no subject and no HTML, which is its code whatever
 * words label it (issue 49). Everything else an SMS carries (a brand prefix,
 * Android's `<#>` and app hash, a code before its words) the general
 * extraction reads already.
 *
 * @packageDocumentation
 */
import type { OtpOptions } from './otp-candidates.ts';
import type { Occurrence } from './otp-scoring.ts';

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

/**
 * The points of the only number of a short text that has no subject and no
 * HTML (an SMS of one to three sentences): such a text is a code message in
 * any language.
 */
export const SOLE_NUMBER_POINTS = 6;

/** How long a short message may be, and how many sentences it may have, for its only number to be its code. */
const SHORT_MESSAGE = { chars: 320, sentences: 3, digits: [4, 8] as const };

/**
 * The only number of a short message (an SMS: text alone, no subject, one to
 * three sentences), when the text holds no other run of digits and that
 * number has 4–8 digits; `null` otherwise. The number still has to survive
 * the masks and labels (an order number, a price, a time is never it).
 */
export function soleNumberOf(text: string): string | null {
  if (text.length > SHORT_MESSAGE.chars) return null;
  const sentences = text.split(/[.!?。！？]+(?=\s|$)|\n\s*\n/u).filter((s) => /\p{L}/u.test(s)).length;
  if (sentences > SHORT_MESSAGE.sentences) return null;
  const runs = new Set(text.match(/\d+/g) ?? []);
  if (runs.size !== 1) return null;
  const [only] = runs;
  if (only === undefined || only.length < SHORT_MESSAGE.digits[0] || only.length > SHORT_MESSAGE.digits[1]) return null;
  const at = text.indexOf(only);
  return atEdge(text.slice(0, at), text.slice(at + only.length)) ? only : null;
}

/** Letters of scripts written without spaces between words (a particle may cling to a number: `123456를`, `123456 はあなたの`). */
const SPACELESS = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;

/**
 * Whether a number stands where a code stands: at the start or end of its
 * sentence, after a colon, against a suffix (`123456-ն`) or beside text of a
 * script written without spaces; not between two words of a sentence
 * ("We now have 58213 happy users", "Use 482913 to track your parcel"), where
 * a number counts or names something else.
 */
function atEdge(before: string, after: string): boolean {
  if (/(?:^|[\n:：.!?。！？#№]|[-–—]\s)\s*$/u.test(before) || SPACELESS.test(before.trimEnd().slice(-1))) return true;
  return /^(?:\s*(?:$|[\n.!?。！？,;:，、；：)）」』\]])|-\p{L})/u.test(after) || SPACELESS.test(after.trimStart().charAt(0));
}

/** Adds the points of the short message's only number to its occurrences (see {@link soleNumberOf}). */
export function creditSoleNumber(occurrences: Occurrence[], text: string): void {
  const only = soleNumberOf(text);
  if (only === null) return;
  for (const o of occurrences) {
    if (o.token.kind !== 'digits' || o.token.code !== only) continue;
    o.score += SOLE_NUMBER_POINTS;
    o.reasons.push('the only number of a short message with no subject (an SMS of one to three sentences)');
  }
}
