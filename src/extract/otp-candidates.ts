/**
 * Tokens that have the shape of a code: digit runs, upper-case letters mixed
 * with digits, grouped forms (`123 456`, `ABC-123`, `1 2 3 4 5 6`), mixed-case
 * runs (`hT4wq9`), or the matches of the caller's pattern.
 */
import type { Style } from './otp-document.ts';
import { CODE_WORDS, CODE_WORDS_CJK, compileWords } from './lexicon.ts';

/** Options of `extractOtps` and `extractOtp`. */
export interface OtpOptions {
  /**
   * Length of the code as typed (separators removed): an exact number, a
   * `[min, max]` pair or `{ min, max }`. An explicit length also lets a
   * number of that length through the phone, date and `#` reference masks.
   * @defaultValue 4–10 for digit codes and for upper-case letters mixed with digits, 6–10 for letter-only and mixed-case codes
   */
  length?: number | readonly [number, number] | { min?: number; max?: number };
  /**
   * The shape of the code. When given, candidates are the matches of this
   * pattern (its first capture group if it has one) instead of the built-in
   * shapes; the ranking still applies, and so do the exclusions, except that
   * a match is not taken for a phone number, date or `#` reference.
   * @example `{ pattern: /[A-Z]{4}-[A-Z]{4}/ }`
   * @defaultValue 4–10 digits, upper-case letters mixed with digits, or upper-case letters alone or mixed-case codes where the evidence says code
   */
  pattern?: RegExp;
  /**
   * Also consider codes made of upper-case letters and digits (`K7PX2M`,
   * `ABC-123`), of letters alone (`KWNR-TXBH`) or of lower case, upper case
   * and digits (`hT4wq9`); with `false` only digit codes are candidates.
   * @defaultValue true
   */
  alphanumeric?: boolean;
}

/**
 * What a built-in candidate is made of: digits, upper-case letters with
 * digits, upper-case letters alone, mixed case, groups of upper-case letters
 * and digits joined by dashes (`AB2CD-EF3GH`, ten or more characters), lower
 * case with digits (`a3f9c2`, hex included), a long token of 11–64
 * characters (hex, base32, or mixed-case base62 from 17: `3f2a…`, `JBSWY3DP…`, `pQ7vK2xR…`),
 * groups of lower-case letters and digits joined by dashes (`ab123-4567c`,
 * `dashed`) or three to six lower-case words joined by dashes
 * (`maple-river-stone-lamp`, `words`).
 */
export type CodeKind = 'digits' | 'alnum' | 'letters' | 'mixed' | 'grouped' | 'lower' | 'long' | 'dashed' | 'words';

/** Default lengths of each kind of code (separators removed). */
export const DEFAULT_LENGTHS: Readonly<Record<CodeKind, readonly [number, number]>> = { digits: [4, 10], alnum: [4, 10], letters: [6, 10], mixed: [6, 10], grouped: [10, 32], lower: [6, 64], long: [11, 64], dashed: [8, 32], words: [11, 66] };

/** Groups of three to eight lower-case letters and digits joined by dashes, with a letter and a digit (`ab123-4567c`). */
const DASHED_LOWER = /^[a-z0-9]{3,8}(?:-[a-z0-9]{3,8}){1,3}$/;
/** Three to six lower-case words of three to ten letters joined by dashes (`maple-river-stone-lamp`). */
const DASHED_WORDS = /^[a-z]{3,10}(?:-[a-z]{3,10}){2,5}$/;

/** The token a dash-joined run of lower case is, when it has the shape of a dashed or word code (typed with its dashes for words, without for groups). */
function dashedToken(run: string, start: number, options: OtpOptions): Token | null {
  const kind = DASHED_LOWER.test(run) && /\d/.test(run) && /[a-z]/.test(run) ? 'dashed' : DASHED_WORDS.test(run) ? 'words' : null;
  if (kind === null) return null;
  const code = kind === 'words' ? run : normalizeCode(run);
  const [min, max] = lengthRange(options, kind);
  return code.length >= min && code.length <= max ? { raw: run, code, start, end: start + run.length, kind, spacedOut: false } : null;
}

/** Groups of four to eight upper-case letters and digits joined by dashes (`AB2CD-EF3GH`, `ABCDE-FGHIJ`). */
const DASHED_GROUPS = /^[A-Z0-9]{4,8}(?:[-–‑][A-Z0-9]{4,8}){1,3}$/;

/** A piece of text shaped like a code; `start`/`end` are offsets in its block. */
export interface Token { raw: string; code: string; start: number; end: number; kind: CodeKind | 'pattern'; spacedOut: boolean; split?: Style }

const RUN = /(?<![A-Za-z0-9_\u00C0-\u024F])[A-Z0-9]+(?:(?: |-|–|‑|·| - | – )[A-Z0-9]+)*(?![A-Za-z0-9_\u00C0-\u024F])/g;
const SEP = /( - | – | |-|–|‑|·)/;

/** Removes the separators a user does not type. */
export function normalizeCode(raw: string): string {
  return raw.replace(/[\s\-–‑·.\u00a0]/g, '');
}

/** The accepted length of a code of this kind: the caller's `length`, or the default. */
export function lengthRange(options: OtpOptions, kind: CodeKind): readonly [number, number] {
  const l = options.length;
  if (typeof l === 'number') return [l, l];
  if (Array.isArray(l)) return [l[0] ?? 1, l[1] ?? 64];
  if (l && typeof l === 'object' && !Array.isArray(l)) {
    const r = l as { min?: number; max?: number };
    return [r.min ?? 1, r.max ?? 64];
  }
  return DEFAULT_LENGTHS[kind];
}

/** The kind of code `code` (separators removed) would be, or `null` when it is not one. */
export function shape(code: string, options: OtpOptions): CodeKind | null {
  if (/^\d+$/.test(code)) {
    const [min, max] = lengthRange(options, 'digits');
    return code.length >= min && code.length <= max ? 'digits' : null;
  }
  if (options.alphanumeric !== false && /^[A-Z0-9]+$/.test(code) && /\d/.test(code) && /[A-Z]/.test(code)) {
    const [min, max] = lengthRange(options, 'alnum');
    return code.length >= min && code.length <= max ? 'alnum' : null;
  }
  if (options.alphanumeric !== false && /^[A-Z]+$/.test(code)) {
    const [min, max] = lengthRange(options, 'letters');
    return code.length >= min && code.length <= max ? 'letters' : null;
  }
  if (options.alphanumeric !== false && isMixedCase(code)) {
    const [min, max] = lengthRange(options, 'mixed');
    return code.length >= min && code.length <= max ? 'mixed' : null;
  }
  if (options.alphanumeric !== false && /^[a-z0-9]+$/.test(code) && /\d/.test(code) && /[a-z]/.test(code)) {
    const [min, max] = lengthRange(options, 'lower');
    return code.length >= min && code.length <= max ? 'lower' : null;
  }
  return null;
}

/**
 * The kind of a long token: 11–64 upper-case letters and digits with at
 * least one letter (base32), or 17–64 lower case, upper case and digits
 * mixed (base62, `pQ7vK2xR9m…`); `null` otherwise.
 */
function longShape(code: string, options: OtpOptions): 'long' | null {
  if (options.alphanumeric === false) return null;
  const upper = /^[A-Z0-9]+$/.test(code) && /[A-Z]/.test(code);
  if (!upper && !isMixedCase(code)) return null;
  const [min, max] = lengthRange(options, 'long');
  // Mixed case from 17 characters: shorter runs are app hashes (Android's 11), ids and names, not codes.
  return code.length >= Math.max(min, upper ? 11 : 17) && code.length <= max ? 'long' : null;
}

/** Whether `raw` is groups of upper-case letters and digits joined by dashes, ten or more characters with a letter. */
function groupedShape(raw: string, options: OtpOptions): 'grouped' | null {
  if (options.alphanumeric === false || !DASHED_GROUPS.test(raw)) return null;
  const code = normalizeCode(raw);
  if (!/[A-Z]/.test(code)) return null;
  const [min, max] = lengthRange(options, 'grouped');
  return code.length >= min && code.length <= max ? 'grouped' : null;
}

/** Whether `code` mixes lower-case letters, upper-case letters and digits (`hT4wq9`). */
export function isMixedCase(code: string): boolean {
  return /^[A-Za-z0-9]+$/.test(code) && /[a-z]/.test(code) && /[A-Z]/.test(code) && /\d/.test(code);
}

/** Letters and digits joined by `-` or `_`: the URL-safe base64 alphabet (RFC 4648 §5) with a separator inside (`Xk3vQp9_rT2mL8wZ1yB4cA`). */
const BASE64URL = /^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+$/;

/**
 * A URL-safe base64 token of 17–64 characters mixing lower case, upper case
 * and digits (`Xk3vQp9_rT2mL8wZ1yB4cA`, `r7Tn2WqK-9vLx4Bz0mYp3g`): a long
 * token typed whole, its dashes and underscores included, read only with the
 * evidence long tokens need. Shorter runs (`ses_Pq4Tx9Lm2`) stay identifiers.
 */
function base64urlToken(run: string, start: number, options: OtpOptions): Token | null {
  if (!BASE64URL.test(run) || !isMixedCase(run.replace(/[-_]/g, ''))) return null;
  const [min, max] = lengthRange(options, 'long');
  return run.length >= Math.max(min, 17) && run.length <= max ? { raw: run, code: run, start, end: start + run.length, kind: 'long', spacedOut: false } : null;
}

/** A run of the characters tokens and base64 are made of; a mixed-case code is a whole run. */
const TOKEN_RUN = /[A-Za-z0-9+/=_]+(?:[.-][A-Za-z0-9+/=_]+)*/g;

/**
 * The mixed-case tokens of a block whose masked stretches are blanked out
 * (`hT4wq9`): whole runs of letters and digits only. A mixed-case piece of a
 * longer run (`Qm9vayB0/b2tl`, `eyJhbGc.eyJzdWIi`, `token_Xy7Kp2q`) is a
 * fragment of base64, a token or an identifier: it goes to `rejectedParts`.
 */
export function mixedTokensOf(masked: string, options: OtpOptions, rejectedParts: Array<{ raw: string; part: string }>): Token[] {
  if (options.alphanumeric === false) return [];
  const out: Token[] = [];
  for (const m of masked.matchAll(TOKEN_RUN)) {
    const run = m[0];
    if (/^[A-Za-z0-9]+$/.test(run)) {
      // A mixed-case run longer than a mixed-case code is a long token (`pQ7vK2xR9mWc4ZtL…`), read only with the evidence long tokens need.
      const kind = shape(run, options) ?? (isMixedCase(run) ? longShape(run, options) : null);
      if (kind === 'mixed' || kind === 'lower' || kind === 'long') out.push({ raw: run, code: run, start: m.index, end: m.index + run.length, kind, spacedOut: false });
      continue;
    }
    if (run.length > 64) continue;
    const dashed = dashedToken(run, m.index, options) ?? base64urlToken(run, m.index, options);
    if (dashed) { out.push(dashed); continue; }
    for (const piece of run.split(/[+/=_.-]+/)) {
      if (shape(piece, options) === 'mixed') rejectedParts.push({ raw: run, part: piece });
    }
  }
  return out;
}

/** A code word at the end of a stretch of capitals ("YOUR CODE", "KOD", "CÓDIGO"). */
const CODE_WORD_AT_END = new RegExp(`(?:${compileWords(CODE_WORDS, CODE_WORDS_CJK).source})[\\s:：]*$`, 'iu');

/**
 * The runs to read of one match of `RUN`: the match itself, or, when a code
 * word written in capitals runs into a dash-joined code with a space between
 * them ("CODE AB2CD-EF3GH", "YOUR CODE IS AB2CD-EF3GH"), the words before and
 * the code as runs of their own.
 */
function runsOf(raw: string, index: number, options: OtpOptions): Array<{ text: string; index: number }> {
  if (!raw.includes(' ') || groupedShape(raw, options)) return [{ text: raw, index }];
  for (const chunk of raw.matchAll(/ ([^ ]+)/g)) {
    const at = chunk.index + 1;
    const code = chunk[1] ?? '';
    if (!groupedShape(code, options) || !CODE_WORD_AT_END.test(raw.slice(0, at).replace(/\s+(?:IS|IST|EST|ES|JEST)\s*$/i, ' '))) continue;
    const rest = raw.slice(at + code.length).trimStart();
    const runs = [{ text: raw.slice(0, at - 1), index }, { text: code, index: index + at }];
    return rest ? [...runs, ...runsOf(rest, index + raw.length - rest.length, options)] : runs;
  }
  return [{ text: raw, index }];
}

/** The code-shaped tokens of a block whose masked stretches are blanked out; pieces of longer identifiers go to `rejectedParts`. */
export function tokensOf(masked: string, options: OtpOptions, rejectedParts: Array<{ raw: string; part: string }>): Token[] {
  const out: Token[] = [];
  RUN.lastIndex = 0;
  for (const r of masked.matchAll(RUN)) for (const m of runsOf(r[0], r.index, options)) tokensOfRun(masked, m, options, rejectedParts, out);
  return out;
}

/** The tokens of one run of capitals and digits (`m.text` at `m.index`), added to `out`. */
function tokensOfRun(masked: string, m: { text: string; index: number }, options: OtpOptions, rejectedParts: Array<{ raw: string; part: string }>, out: Token[]): void {
  const parts = m.text.split(SEP);
  // parts = [group, sep, group, sep, group …]
  const groups: Array<{ text: string; start: number; sep: string }> = [];
  let pos = m.index;
  for (let i = 0; i < parts.length; i += 2) {
    const text = parts[i] ?? '';
    groups.push({ text, start: pos, sep: parts[i - 1] ?? '' });
    pos += text.length + (parts[i + 1] ?? '').length;
  }
  const grouped = groupedShape(m.text, options);
  if (grouped) {
    out.push({ raw: m.text, code: normalizeCode(m.text), start: m.index, end: m.index + m.text.length, kind: grouped, spacedOut: false });
    return;
  }
  // Pieces of a hyphenated identifier that is not itself a code (2024-PRM-55183) are not codes either.
  const hyphenated = groups.slice(1).some((g) => g.sep !== ' ');
  let i = 0;
  while (i < groups.length) {
    let taken = false;
    for (let j = Math.min(groups.length, i + 10); j >= i + 2; j--) {
      const win = groups.slice(i, j);
      const seps = new Set(win.slice(1).map((g) => g.sep));
      if (seps.size !== 1) continue;
      const lengths = win.map((g) => g.text.length);
      const allSingle = win.length >= 4 && lengths.every((n) => n === 1);
      const uniform = win.length <= 4 && lengths.every((n) => n === lengths[0]) && (lengths[0] ?? 0) >= 2 && (lengths[0] ?? 0) <= 4;
      if (!allSingle && !uniform) continue;
      const first = win[0];
      const last = win[win.length - 1];
      if (!first || !last) continue;
      const raw = masked.slice(first.start, last.start + last.text.length);
      const code = normalizeCode(raw);
      const kind = shape(code, options);
      if (!kind) continue;
      out.push({ raw, code, start: first.start, end: last.start + last.text.length, kind, spacedOut: allSingle });
      i = j;
      taken = true;
      break;
    }
    if (taken) continue;
    const g = groups[i];
    if (g && hyphenated && !/^[A-Z]{1,2}-\d{4,8}$/.test(m.text)) {
      if (shape(g.text, options)) rejectedParts.push({ raw: m.text, part: g.text });
    } else if (g) {
      const kind = shape(g.text, options) ?? longShape(g.text, options);
      if (kind) out.push({ raw: g.text, code: g.text, start: g.start, end: g.start + g.text.length, kind, spacedOut: false });
    }
    i++;
  }
}

/** The matches of the caller's pattern (its first capture group if it has one) that fit `length`. */
export function patternTokens(text: string, pattern: RegExp, options: OtpOptions): Token[] {
  const re = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  const out: Token[] = [];
  for (const m of text.matchAll(re)) {
    const raw = m[1] ?? m[0];
    if (raw === '') continue;
    const start = m.index + Math.max(0, m[0].indexOf(raw));
    const code = normalizeCode(raw);
    if (options.length !== undefined) {
      const [min, max] = lengthRange(options, /^\d+$/.test(code) ? 'digits' : /^[A-Z]+$/.test(code) ? 'letters' : 'alnum');
      if (code.length < min || code.length > max) continue;
    }
    out.push({ raw, code, start, end: start + raw.length, kind: 'pattern', spacedOut: false });
  }
  return out;
}
