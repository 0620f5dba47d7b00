/**
 * Why `extractOtp` found nothing, in terms a user can act on: the strings
 * right after a code word that no built-in shape accepts (too short, too
 * long, another layout), each with the option that would read it
 * (`{ length }` or `{ pattern }`).
 */
import { CODE_WORDS, CODE_WORDS_CJK, compileWords } from './lexicon.ts';
import type { Doc } from './otp-document.ts';
import { DEFAULT_LENGTHS, normalizeCode, type OtpOptions } from './otp-candidates.ts';

/** A string that looked like a code but has no built-in shape, and the option that would read it. */
export interface NearMiss {
  /** The text as the message writes it. */
  raw: string;
  /** Why it is not read as a code, and what to pass instead. */
  reason: string;
}

const CODE_ANY = compileWords(CODE_WORDS, CODE_WORDS_CJK);
/** A run of letters and digits, with single dashes, dots or spaces between groups. */
const TOKEN = /(?<![\p{L}\p{N}])[\p{L}\p{N}]+(?:[-–. _/][\p{L}\p{N}]+)*/gu;
const MAX_HITS = 50;
const MAX_MISSES = 5;

/** The part of a space-joined run that can be a code: from its first group with a digit or capitals, while groups hold only digits and capitals. */
function codePart(run: string): string {
  const groups = run.trim().split(' ');
  const start = groups.findIndex((g) => /\d|[A-Z]{2}/.test(g));
  if (start < 0) return '';
  let end = start + 1;
  while (end < groups.length && /^[\dA-Z]+(?:[-–.][\dA-Z]+)*$/.test(groups[end] ?? '')) end++;
  return groups.slice(start, end).join(' ');
}

/** A RegExp literal for the layout of `raw`: digits as `\d`, upper case as `[A-Z]`, lower case as `[a-z]`. */
function patternFor(raw: string): string {
  const parts = raw.split(/([-–. _/])/);
  const body = parts.map((p, i) => {
    if (i % 2 === 1) return p === ' ' ? ' ' : p === '.' ? '\\.' : p === '/' ? '\\/' : p === '_' ? '_' : '-';
    const cls = /^\d+$/.test(p) ? '\\d' : /^[A-Z]+$/.test(p) ? '[A-Z]' : /^[a-z]+$/.test(p) ? '[a-z]' : /^[A-Z0-9]+$/.test(p) ? '[A-Z0-9]' : /^[a-z0-9]+$/.test(p) ? '[a-z0-9]' : '[A-Za-z0-9]';
    return `${cls}{${p.length}}`;
  }).join('');
  return `/\\b${body}\\b/`;
}

function explain(raw: string): string | null {
  const code = normalizeCode(raw);
  if (!/\d/.test(code) && !/[A-Z].*[A-Z]/.test(code)) return null;
  if (!/^[A-Za-z0-9]+$/.test(code)) return `has characters no built-in code has; pass { pattern: ${patternFor(raw)} }`;
  const [min, max] = DEFAULT_LENGTHS.digits;
  if (/^\d+$/.test(code)) {
    if (code.length < min) return `${code.length} digits, fewer than the ${min} a code has by default; pass { length: ${code.length} }`;
    if (code.length > max) return `${code.length} digits, more than the ${max} a code has by default; pass { length: ${code.length} }`;
    return raw === code ? null : `digits in a layout no built-in code has; pass { pattern: ${patternFor(raw)} }`;
  }
  if (code.length < min) return `${code.length} characters, fewer than a code has by default; pass { length: ${code.length} }`;
  if (code.length > 64) return null;
  return `a layout no built-in code has (${code.length} characters); pass { pattern: ${patternFor(raw)} }${code.length > 10 ? ` or { length: ${code.length} }` : ''}`;
}

/**
 * The strings right after a code word (within 80 characters) that no shape
 * read and no rule ruled out, up to five, with the option that would read
 * each. `seen` holds the codes (separators removed) already listed.
 */
export function nearMisses(docs: readonly Doc[], seen: ReadonlySet<string>, options: OtpOptions): NearMiss[] {
  if (options.pattern) return [];
  const out: NearMiss[] = [];
  const listed = new Set(seen);
  for (const doc of docs) {
    let hits = 0;
    for (const hit of doc.text.matchAll(CODE_ANY)) {
      if (++hits > MAX_HITS || out.length >= MAX_MISSES) break;
      // Strings that start within 80 characters of the word, read whole (one the window cut would be suggested with a wrong length).
      const after = doc.text.slice(hit.index + hit[0].length, hit.index + hit[0].length + 80 + 128);
      for (const m of after.matchAll(TOKEN)) {
        if (m.index >= 80) break;
        const raw = codePart(m[0]);
        if (raw === '') continue;
        const code = normalizeCode(raw);
        if (listed.has(code)) break;
        const reason = explain(raw);
        if (reason === null) continue;
        listed.add(code);
        out.push({ raw, reason: `after "${hit[0]}": ${reason}` });
        break;
      }
    }
  }
  return out.slice(0, MAX_MISSES);
}
