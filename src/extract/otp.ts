import * as cheerio from 'cheerio';
import { OtpNotFoundError } from './errors.ts';
import { normalizeInput, type ExtractSource, type NormalizedInput } from './input.ts';
import {
  ADDRESS_WORDS, ADDRESS_WORDS_CJK, CODE_WORDS, CODE_WORDS_CJK, LABEL_WORDS, LABEL_WORDS_CJK, PHONE_WORDS, PHONE_WORDS_CJK, VERIFY_WORDS, VERIFY_WORDS_CJK, compileWords,
} from './lexicon.ts';
import type { ExtractedFrom, OtpCandidate, RejectedOtp } from './types.ts';

/** Options of `extractOtps` and `extractOtp`. */
export interface OtpOptions {
  /**
   * Length of the code as typed (separators removed): an exact number, a
   * `[min, max]` pair or `{ min, max }`.
   * @defaultValue 4–8 for digit codes, 4–10 for codes with letters
   */
  length?: number | readonly [number, number] | { min?: number; max?: number };
  /**
   * The shape of the code. When given, candidates are the matches of this
   * pattern (its first capture group if it has one) instead of the built-in
   * shapes; the exclusion rules and the ranking still apply.
   * @example `{ pattern: /[A-Z]{4}-[A-Z]{4}/ }`
   * @defaultValue 4–8 digits, or upper-case letters mixed with digits
   */
  pattern?: RegExp;
  /**
   * Also consider codes made of upper-case letters and digits (`K7PX2M`,
   * `ABC-123`); with `false` only digit codes are candidates.
   * @defaultValue true
   */
  alphanumeric?: boolean;
}

/** Candidates scoring below this are reported but not returned by `extractOtp`. */
export const OTP_MIN_SCORE = 6;

interface Style { large: boolean; bold: boolean; mono: boolean; spaced: boolean }
interface Run { start: number; end: number; style: Style }
interface Block { text: string; runs: Run[]; offset: number }
interface SplitCode { raw: string; blockIndex: number; style: Style }
interface Doc { source: ExtractedFrom; text: string; blocks: Block[]; splits: SplitCode[] }
interface DomNode { type: string; name?: string; data?: string; attribs?: Record<string, string>; children?: DomNode[] }

const PLAIN: Style = { large: false, bold: false, mono: false, spaced: false };
const BLOCK_TAGS = new Set(['address', 'article', 'aside', 'blockquote', 'body', 'center', 'dd', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'caption']);
const SKIP_TAGS = new Set(['head', 'title', 'script', 'style', 'template', 'noscript', 'svg', 'img', 'meta', 'link']);
const MONO_FONT = /mono|courier|consolas|menlo|monaco|lucida console|source code|inconsolata|fira code|sf mono/i;

// ---------------------------------------------------------------------------
// Reading the bodies into blocks
// ---------------------------------------------------------------------------

function parseCss(style: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const decl of style.split(';')) {
    const i = decl.indexOf(':');
    if (i > 0) out[decl.slice(0, i).trim().toLowerCase()] = decl.slice(i + 1).trim().toLowerCase().replace(/\s*!important$/, '');
  }
  return out;
}

function sizeClass(value: string | undefined): boolean | null {
  if (!value) return null;
  if (/^(?:x-large|xx-large|xxx-large|larger)$/.test(value)) return true;
  if (/^(?:xx-small|x-small|small|medium|smaller)$/.test(value)) return false;
  const m = /^(\d+(?:\.\d+)?)(px|pt|em|rem|%)?/.exec(value);
  if (!m) return null;
  const n = Number(m[1]);
  switch (m[2]) {
    case 'pt': return n >= 15;
    case 'em': case 'rem': return n >= 1.4 ? true : n < 1 ? false : null;
    case '%': return n >= 140 ? true : n < 100 ? false : null;
    default: return n >= 20;
  }
}

function spacingClass(value: string | undefined): boolean | null {
  if (!value) return null;
  if (value === 'normal') return false;
  const m = /^(-?\d+(?:\.\d+)?)(px|pt|em|rem)?/.exec(value);
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] === 'em' || m[2] === 'rem' ? n >= 0.1 : n >= 2;
}

function isHidden(attrs: Record<string, string>, css: Record<string, string>): boolean {
  if ('hidden' in attrs) return true;
  if (css['display'] === 'none' || css['visibility'] === 'hidden' || css['opacity'] === '0') return true;
  if (css['font-size'] !== undefined && /^(?:0|1)(?:px|pt)?$/.test(css['font-size'])) return true;
  if (css['max-height'] !== undefined && /^0(?:px)?$/.test(css['max-height']) && (css['overflow'] ?? '').includes('hidden')) return true;
  return false;
}

function deriveStyle(parent: Style, name: string, attrs: Record<string, string>, css: Record<string, string>): Style {
  const s: Style = { ...parent };
  if (name === 'h1' || name === 'h2' || name === 'big') s.large = true;
  if (/^h[1-6]$/.test(name) || name === 'b' || name === 'strong' || name === 'th') s.bold = true;
  if (name === 'code' || name === 'pre' || name === 'kbd' || name === 'samp' || name === 'tt') s.mono = true;
  if (name === 'font') {
    const size = attrs['size'];
    if (size) {
      const n = size.startsWith('+') ? 3 + Number(size.slice(1)) : size.startsWith('-') ? 3 - Number(size.slice(1)) : Number(size);
      if (Number.isFinite(n)) s.large = n >= 5;
    }
    if (attrs['face'] && MONO_FONT.test(attrs['face'])) s.mono = true;
  }
  const font = css['font'];
  if (font) {
    if (/\bbold\b|\b[6-9]00\b/.test(font)) s.bold = true;
    const large = sizeClass(/(\d+(?:\.\d+)?(?:px|pt|em|rem|%))/.exec(font)?.[1]);
    if (large !== null) s.large = large;
    if (MONO_FONT.test(font)) s.mono = true;
  }
  const large = sizeClass(css['font-size']);
  if (large !== null) s.large = large;
  const weight = css['font-weight'];
  if (weight) s.bold = /^(?:bold|bolder|[6-9]00)$/.test(weight);
  if (css['font-family']) s.mono = MONO_FONT.test(css['font-family']);
  const spaced = spacingClass(css['letter-spacing']);
  if (spaced !== null) s.spaced = spaced;
  return s;
}

/** Full-width digits and Latin letters (common in CJK mail) as ASCII; everything else untouched. */
function asciiDigits(s: string): string {
  return s.replace(/[\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}

function textOf(node: DomNode): string {
  if (node.type === 'text') return node.data ?? '';
  if (node.type !== 'tag') return '';
  return (node.children ?? []).map(textOf).join('');
}

/** Digits laid out one per cell/box: `<tr><td>4</td><td>8</td>…</tr>`. */
function splitDigits(node: DomNode): string | null {
  const kids = (node.children ?? []).filter((c) => !(c.type === 'text' && (c.data ?? '').trim() === '') && c.type !== 'comment');
  if (kids.length < 4 || kids.length > 10) return null;
  const chars: string[] = [];
  for (const k of kids) {
    if (k.type !== 'tag' || !BLOCK_TAGS.has(k.name ?? '')) return null;
    const t = asciiDigits(textOf(k)).replace(/\s+/g, '');
    if (!/^[0-9A-Z]$/.test(t)) return null;
    chars.push(t);
  }
  return chars.join(' ');
}

function finishDoc(source: ExtractedFrom, raw: Array<{ text: string; runs: Run[] }>, splits: SplitCode[]): Doc {
  const blocks: Block[] = [];
  let text = '';
  for (const b of raw) {
    if (text !== '') text += '\n';
    blocks.push({ text: b.text, runs: b.runs, offset: text.length });
    text += b.text;
  }
  return { source, text, blocks, splits };
}

function htmlDoc(html: string): Doc {
  const $ = cheerio.load(html);
  const root = $.root()[0] as unknown as DomNode;
  const raw: Array<{ text: string; runs: Run[] }> = [];
  const splits: SplitCode[] = [];
  let cur: { text: string; runs: Run[] } = { text: '', runs: [] };
  const flush = (): void => {
    const trimmed = cur.text.replace(/ +$/, '');
    if (trimmed.trim() !== '') raw.push({ text: trimmed, runs: cur.runs });
    cur = { text: '', runs: [] };
  };
  const append = (data: string, style: Style): void => {
    let t = asciiDigits(data).replace(/(?:\s|\u200b|\u200c|\u200d|\ufeff|\u034f)+/g, ' ');
    if (cur.text === '' || cur.text.endsWith(' ')) t = t.replace(/^ /, '');
    if (t === '') return;
    const start = cur.text.length;
    cur.text += t;
    cur.runs.push({ start, end: cur.text.length, style });
  };
  const visit = (node: DomNode, style: Style): void => {
    if (node.type === 'text') { append(node.data ?? '', style); return; }
    if (node.type !== 'tag' && node.type !== 'root') return;
    const name = (node.name ?? '').toLowerCase();
    if (SKIP_TAGS.has(name)) return;
    const attrs = node.attribs ?? {};
    const css = parseCss(attrs['style'] ?? '');
    if (isHidden(attrs, css)) return;
    if (name === 'br') { flush(); return; }
    const next = node.type === 'root' ? style : deriveStyle(style, name, attrs, css);
    const block = BLOCK_TAGS.has(name);
    if (block) {
      flush();
      const split = splitDigits(node);
      if (split) {
        const cell = (node.children ?? []).find((c) => c.type === 'tag');
        const cellAttrs = cell?.attribs ?? {};
        splits.push({ raw: split, blockIndex: raw.length, style: cell ? deriveStyle(next, (cell.name ?? '').toLowerCase(), cellAttrs, parseCss(cellAttrs['style'] ?? '')) : next });
      }
    }
    for (const child of node.children ?? []) visit(child, next);
    if (block) flush();
  };
  visit(root, PLAIN);
  flush();
  return finishDoc('html', raw, splits);
}

function textDoc(text: string, source: ExtractedFrom): Doc {
  const raw = text.split(/\r?\n/).map((line) => asciiDigits(line).replace(/\s+/g, ' ').trim()).filter((l) => l !== '').map((l) => ({ text: l, runs: [] }));
  return finishDoc(source, raw, []);
}

// ---------------------------------------------------------------------------
// Exclusions that can be recognised from the text alone
// ---------------------------------------------------------------------------

interface Mask { start: number; end: number; reason: string }

const digitCount = (s: string): number => s.replace(/\D/g, '').length;
const MONEY_NUMBER = "(?:\\d{1,3}(?:[.,'\u00a0\u202f ]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?)";
const CURRENCY_BEFORE = '(?:[$€£¥₹₽₩]|US\\$|R\\$|CHF|EUR|USD|GBP|SEK|NOK|DKK|PLN|JPY|CNY|RUB)';
const CURRENCY_AFTER = '(?:€|EUR|USD|\\$|£|zł|PLN|kr\\.?|SEK|NOK|DKK|руб\\.?|₽|円|元|CHF|yen|Kč)';

const MASK_RULES: ReadonlyArray<{ re: RegExp; reason: (m: string) => string | null }> = [
  { re: /\b(?:https?:\/\/|www\.)[^\s<>"]+/giu, reason: () => 'part of a URL' },
  { re: /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu, reason: () => 'part of an email address' },
  { re: /(?<![a-z0-9.-])(?:[a-z0-9-]+\.)+[a-z]{2,}\/[^\s<>"]*/gu, reason: () => 'part of a URL' },
  { re: /(?:^|(?<=[^\w&]))#[0-9A-Fa-f]{3,8}\b/gu, reason: (m) => (/[A-Fa-f]/.test(m) || [4, 7, 9].includes(m.length) ? 'a colour' : `a number marked with "#" (a reference, not a code)`) },
  { re: /#\d{2,}\b/gu, reason: () => 'a number marked with "#" (a reference, not a code)' },
  { re: /\b(?:rgba?|hsla?)\s*\([^)]*\)/giu, reason: () => 'a colour' },
  { re: /\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b/gu, reason: () => 'a date' },
  { re: /\b\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b/gu, reason: () => 'a date' },
  { re: /\d{4}\s?年\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?日)?|\d{1,2}\s?月\s?\d{1,2}\s?日/gu, reason: () => 'a date' },
  { re: /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?(?:\s?(?:UTC|GMT|[A-Z]{2,4}T))?/gu, reason: () => 'a time' },
  { re: /\b\d{1,2}\s?[AaPp]\.?[Mm]\.?(?![\p{L}])|\b\d{1,2}h\d{2}\b|\b\d{1,2}[.:]\d{2}\s?Uhr\b/gu, reason: () => 'a time' },
  { re: new RegExp(`${CURRENCY_BEFORE}\\s?${MONEY_NUMBER}`, 'gu'), reason: () => 'a price' },
  { re: new RegExp(`(?<![\\d.,'])${MONEY_NUMBER}\\s?${CURRENCY_AFTER}(?![\\p{L}])`, 'gu'), reason: () => 'a price' },
  { re: /\b\d+(?:[.,]\d+)?\s?%/gu, reason: () => 'a percentage' },
  { re: /(?:\+|\b00)[1-9]\d{0,2}(?:[\s.\-/]?\(?\d{1,5}\)?){2,6}/gu, reason: (m) => (digitCount(m) >= 8 ? 'a phone number' : null) },
  { re: /\(\d{2,5}\)\s?\d{2,5}(?:[\s.-]\d{2,5}){0,3}/gu, reason: (m) => (digitCount(m) >= 7 ? 'a phone number' : null) },
  { re: /\b1[\s.-]\d{3}[\s.-]\d{3}[\s.-]\d{4}\b|\b\d{3}[.-]\d{3}[.-]\d{4}\b|\b\d{3} \d{3} \d{4}\b|\b\d{3}-\d{4}\b/gu, reason: () => 'a phone number' },
  { re: /\b[78][\s-]?\(?\d{3}\)?[\s-]?\d{3}[\s-]?\d{2}[\s-]?\d{2}\b/gu, reason: () => 'a phone number' },
  { re: /\b\d{1,4}(?:[\s.-]\d{2,4}){2,5}\b/gu, reason: (m) => (digitCount(m) >= 9 ? 'a phone number' : null) },
  { re: /\b\d+(?:\/\d+)+\b/gu, reason: () => 'a date or a number with slashes' },
  { re: /\b(?:0800|0808|0900|1300|1800|1-800|800|888|877|866)[\s-]?\d{3}[\s-]?\d{3,4}\b/gu, reason: () => 'a phone number' },
  { re: /\b0\d{1,4}(?:[\s/-]\d{2,8}){1,4}\b/gu, reason: (m) => (digitCount(m) >= 9 ? 'a phone number' : null) },
  { re: /,\s?[A-Z]{2}\s\d{5}(?:-\d{4})?\b/gu, reason: () => 'a US ZIP code' },
  { re: /\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b/gu, reason: () => 'a UK postcode' },
  { re: /\b[AC-FHKNPRTV-Y]\d{2} [AC-FHKNPRTV-Y\d]{4}\b/gu, reason: (m) => (/[A-Z]/.test(m.slice(3)) ? 'an Irish Eircode' : null) },
  { re: /\b\d+(?:[.,]\d+)+\b/gu, reason: () => 'a decimal number, version or IP address' },
  { re: /©\s?\d{4}(?:\s?[-–]\s?\d{4})?/gu, reason: () => 'a copyright year' },
];

function masksOf(text: string): Mask[] {
  const masks: Mask[] = [];
  const covered = new Uint8Array(text.length);
  for (const rule of MASK_RULES) {
    rule.re.lastIndex = 0;
    for (const m of text.matchAll(rule.re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (covered.subarray(start, end).includes(1)) continue;
      const reason = rule.reason(m[0]);
      if (!reason) continue;
      masks.push({ start, end, reason });
      covered.fill(1, start, end);
    }
  }
  return masks.sort((a, b) => a.start - b.start);
}

// ---------------------------------------------------------------------------
// Tokens that have the shape of a code
// ---------------------------------------------------------------------------

interface Token { raw: string; code: string; start: number; end: number; kind: 'digits' | 'alnum' | 'pattern'; spacedOut: boolean; split?: Style }

const RUN = /(?<![A-Za-z0-9_\u00C0-\u024F])[A-Z0-9]+(?:(?: |-|–|‑|·| - | – )[A-Z0-9]+)*(?![A-Za-z0-9_\u00C0-\u024F])/g;
const SEP = /( - | – | |-|–|‑|·)/;

/** Removes the separators a user does not type. */
export function normalizeCode(raw: string): string {
  return raw.replace(/[\s\-–‑·.\u00a0]/g, '');
}

function lengthRange(options: OtpOptions, kind: 'digits' | 'alnum'): [number, number] {
  const l = options.length;
  if (typeof l === 'number') return [l, l];
  if (Array.isArray(l)) return [l[0] ?? 1, l[1] ?? 64];
  if (l && typeof l === 'object' && !Array.isArray(l)) {
    const r = l as { min?: number; max?: number };
    return [r.min ?? 1, r.max ?? 64];
  }
  return kind === 'digits' ? [4, 8] : [4, 10];
}

function shape(code: string, options: OtpOptions): 'digits' | 'alnum' | null {
  if (/^\d+$/.test(code)) {
    const [min, max] = lengthRange(options, 'digits');
    return code.length >= min && code.length <= max ? 'digits' : null;
  }
  if (options.alphanumeric !== false && /^[A-Z0-9]+$/.test(code) && /\d/.test(code) && /[A-Z]/.test(code)) {
    const [min, max] = lengthRange(options, 'alnum');
    return code.length >= min && code.length <= max ? 'alnum' : null;
  }
  return null;
}

function tokensOf(masked: string, options: OtpOptions, rejectedParts: Array<{ raw: string; part: string }>): Token[] {
  const out: Token[] = [];
  RUN.lastIndex = 0;
  for (const m of masked.matchAll(RUN)) {
    const parts = m[0].split(SEP);
    // parts = [group, sep, group, sep, group …]
    const groups: Array<{ text: string; start: number; sep: string }> = [];
    let pos = m.index;
    for (let i = 0; i < parts.length; i += 2) {
      const text = parts[i] ?? '';
      groups.push({ text, start: pos, sep: parts[i - 1] ?? '' });
      pos += text.length + (parts[i + 1] ?? '').length;
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
      if (g && hyphenated && !/^[A-Z]{1,2}-\d{4,8}$/.test(m[0])) {
        if (shape(g.text, options)) rejectedParts.push({ raw: m[0], part: g.text });
      } else if (g) {
        const kind = shape(g.text, options);
        if (kind) out.push({ raw: g.text, code: g.text, start: g.start, end: g.start + g.text.length, kind, spacedOut: false });
      }
      i++;
    }
  }
  return out;
}

function patternTokens(text: string, pattern: RegExp, options: OtpOptions): Token[] {
  const re = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  const out: Token[] = [];
  for (const m of text.matchAll(re)) {
    const raw = m[1] ?? m[0];
    if (raw === '') continue;
    const start = m.index + Math.max(0, m[0].indexOf(raw));
    const code = normalizeCode(raw);
    if (options.length !== undefined) {
      const [min, max] = lengthRange(options, /^\d+$/.test(code) ? 'digits' : 'alnum');
      if (code.length < min || code.length > max) continue;
    }
    out.push({ raw, code, start, end: start + raw.length, kind: 'pattern', spacedOut: false });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Ranking
// ---------------------------------------------------------------------------

const CODE_RE = compileWords(CODE_WORDS, CODE_WORDS_CJK);
const VERIFY_RE = compileWords(VERIFY_WORDS, VERIFY_WORDS_CJK);
const ADDRESS_RE = compileWords(ADDRESS_WORDS, ADDRESS_WORDS_CJK);
const GAP = "[\\s:：#№().\\-–—=]*(?:(?:n[°º]|no\\.?|nr\\.?)[\\s:：#№().\\-–—=]*)?(?:(is|was|ist|lautet|est|es|è|é|är|er|jest|wynosi|は|为|為)[\\s:：#№().\\-–—]*)?";
const wordsAlt = (words: readonly string[], cjk: readonly string[]): string =>
  `(?:(?<![\\p{L}\\p{N}])(?:${[...words].sort((a, b) => b.length - a.length).join('|')})|${[...cjk].sort((a, b) => b.length - a.length).join('|')})`;
const LABEL_BEFORE = new RegExp(`${wordsAlt(LABEL_WORDS, LABEL_WORDS_CJK)}${GAP}$`, 'iu');
const PHONE_BEFORE = new RegExp(`${wordsAlt(PHONE_WORDS, PHONE_WORDS_CJK)}(?:\\s+(?:us|at|on|oss|på))*${GAP}$`, 'iu');
const LABEL_AFTER = new RegExp(`^\\s*(?:is|was|ist|est|es|è|är|is je)\\s+(?:your|the|ihre?|deine?|votre|ton|tu|su|il tuo|la tua|seu|sua|uw|je|twój|din|ditt|ваш)?\\s*${wordsAlt(LABEL_WORDS, LABEL_WORDS_CJK)}(?![\\p{L}])`, 'iu');
const YEAR = /^(?:199\d|20\d\d)$/;
const YEAR_BEFORE = /(?<![\p{L}])(?:since|in|from|until|till|by|of|year|class of|seit|im|ab|bis|depuis|en|desde|dal|nel|sedan|år|od|w|roku|с|в|до)\s*$/iu;
const CODE_WORD_IN_CLAUSE = new RegExp(`(?:${CODE_RE.source})[^.!?。\\n]*$`, 'iu');

function codeWordEndsIn(text: string): boolean {
  return CODE_WORD_IN_CLAUSE.test(text);
}

interface Occurrence { token: Token; doc: Doc; blockIndex: number; score: number; reasons: string[]; docStart: number }

interface WordHit { start: number; end: number; text: string }

/** Matches of a word list outside masked text (a "code" inside a URL is not a code word). */
function wordHits(doc: Doc, re: RegExp, masked: Uint8Array): WordHit[] {
  re.lastIndex = 0;
  const hits: WordHit[] = [];
  for (const m of doc.text.matchAll(re)) {
    const start = m.index;
    const end = start + m[0].length;
    if (masked.subarray(start, end).includes(1)) continue;
    hits.push({ start, end, text: m[0] });
  }
  return hits;
}

function blockIndexAt(doc: Doc, pos: number): number {
  let lo = 0;
  let hi = doc.blocks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((doc.blocks[mid]?.offset ?? 0) <= pos) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/** Hits further than this many characters away never count. */
const WINDOW = 300;

/** Distance in characters, where crossing into another block or cell counts as 25. `hits` are in document order. */
function nearest(doc: Doc, hits: WordHit[], start: number, end: number): { distance: number; hit: WordHit } | null {
  let best: { distance: number; hit: WordHit } | null = null;
  const block = blockIndexAt(doc, start);
  // First hit that ends after start - WINDOW.
  let lo = 0;
  let hi = hits.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((hits[mid]?.end ?? 0) < start - WINDOW) lo = mid + 1; else hi = mid;
  }
  for (let i = lo; i < hits.length; i++) {
    const h = hits[i];
    if (!h || h.start > end + WINDOW) break;
    const gap = h.end <= start ? start - h.end : h.start >= end ? h.start - end : 0;
    const crossed = Math.abs(blockIndexAt(doc, h.start) - block);
    // A keyword after the code is a weaker hint than one before it ("123456 is your code" is rarer).
    const distance = gap + 25 * crossed + (h.start >= end ? 10 : 0);
    if (!best || distance < best.distance) best = { distance, hit: h };
  }
  return best;
}

function styleOver(block: Block, start: number, end: number): Style {
  const s: Style = { ...PLAIN };
  for (const r of block.runs) {
    if (r.start < end && r.end > start && /[A-Z0-9]/.test(block.text.slice(Math.max(r.start, start), Math.min(r.end, end)))) {
      s.large ||= r.style.large;
      s.bold ||= r.style.bold;
      s.mono ||= r.style.mono;
      s.spaced ||= r.style.spaced;
    }
  }
  return s;
}

interface Analysis { candidates: OtpCandidate[]; rejected: RejectedOtp[] }

function analyzeDoc(doc: Doc, options: OtpOptions): { occurrences: Occurrence[]; rejected: RejectedOtp[] } {
  const occurrences: Occurrence[] = [];
  const rejected: RejectedOtp[] = [];
  const docMasks: Mask[] = [];
  const tokens: Array<{ token: Token; blockIndex: number; masks: Mask[] }> = [];
  doc.blocks.forEach((block, blockIndex) => {
    const masks = masksOf(block.text);
    for (const k of masks) {
      docMasks.push({ start: k.start + block.offset, end: k.end + block.offset, reason: k.reason });
      const text = block.text.slice(k.start, k.end);
      const shown = text.replace(/^[\s,;]+/, '');
      if (digitCount(text) >= 4) rejected.push({ raw: shown.length > 50 ? `${shown.slice(0, 49)}…` : shown, reason: k.reason, source: doc.source });
    }
    if (options.pattern) {
      for (const t of patternTokens(block.text, options.pattern, options)) {
        const mask = masks.find((k) => t.start < k.end && t.end > k.start);
        if (mask) continue;
        tokens.push({ token: t, blockIndex, masks });
      }
    } else {
      let masked = block.text;
      for (const k of masks) masked = masked.slice(0, k.start) + '¤'.repeat(k.end - k.start) + masked.slice(k.end);
      const parts: Array<{ raw: string; part: string }> = [];
      for (const t of tokensOf(masked, options, parts)) tokens.push({ token: t, blockIndex, masks });
      for (const p of parts) rejected.push({ raw: p.part, reason: `part of the longer identifier ${p.raw}`, source: doc.source });
    }
  });
  if (!options.pattern) {
    for (const split of doc.splits) {
      const code = normalizeCode(split.raw);
      const kind = shape(code, options);
      const block = doc.blocks[split.blockIndex];
      if (!kind || !block) continue;
      tokens.push({ token: { raw: split.raw, code, start: 0, end: block.text.length, kind, spacedOut: true, split: split.style }, blockIndex: split.blockIndex, masks: [] });
    }
  }
  const masked = new Uint8Array(doc.text.length);
  for (const k of docMasks) masked.fill(1, k.start, k.end);
  const codeHits = wordHits(doc, CODE_RE, masked);
  const verifyHits = wordHits(doc, VERIFY_RE, masked);
  const addressHits = wordHits(doc, ADDRESS_RE, masked);

  for (const { token, blockIndex } of tokens) {
    const block = doc.blocks[blockIndex];
    if (!block) continue;
    const isSplit = token.split !== undefined;
    const docStart = block.offset + token.start;
    const docEnd = block.offset + token.end;
    const reject = (reason: string): void => { rejected.push({ raw: token.raw, reason, source: doc.source }); };

    const before = block.text.slice(Math.max(0, token.start - 60), token.start);
    const after = block.text.slice(token.end, token.end + 60);
    let label = LABEL_BEFORE.exec(before);
    // "the OTP for this transaction is 123456": a verb between label and number, and a code word earlier in
    // the clause, means the label is not the number's name.
    if (label?.[1] && codeWordEndsIn(before.slice(Math.max(0, label.index - 50), label.index))) label = null;
    label ??= LABEL_AFTER.exec(after);
    if (label && !isSplit) { reject(`labelled "${label[0].trim().replace(/[\s:：#№().\-–—=]+$/u, '')}" (not a one-time code)`); continue; }
    const phone = PHONE_BEFORE.exec(before);
    if (phone && !isSplit) { reject(`follows "${phone[0].trim()}" (a phone number)`); continue; }

    const kw = nearest(doc, codeHits, docStart, docEnd);
    const kwDistance = kw?.distance ?? Infinity;

    if (token.kind === 'digits' && (token.code.length === 4 || token.code.length === 5)) {
      const addr = nearest(doc, addressHits, docStart, docEnd);
      if (addr && addr.distance <= 60 && addr.distance < kwDistance) { reject(`near the address word "${addr.hit.text}" (a street number or postal code)`); continue; }
    }

    const reasons: string[] = [];
    let score = 0;
    const rest = block.text.slice(0, token.start) + block.text.slice(token.end);
    const alone = isSplit || /^[\s\p{P}\p{S}]*$/u.test(rest);
    const style = token.split ?? styleOver(block, token.start, token.end);

    if (token.kind === 'digits' && YEAR.test(token.code)) {
      if ((kwDistance > 20 && !alone) || YEAR_BEFORE.test(before)) { reject('a year'); continue; }
      score -= 8;
      reasons.push('looks like a year');
    }

    if (token.kind === 'digits') { score += token.code.length === 6 ? 2 : 1; reasons.push(`${token.code.length} digits`); }
    const verify = nearest(doc, verifyHits, docStart, docEnd);
    const strong = kw && kwDistance <= 150 ? Math.max(1, Math.round(12 - kwDistance / 12)) : 0;
    const weak = verify && verify.distance <= 80 ? Math.max(1, Math.round(4 - verify.distance / 20)) : 0;
    if (strong > 0 && kw) { score += strong; reasons.push(`near "${kw.hit.text}"`); }
    else if (weak > 0 && verify) { score += weak; reasons.push(`near "${verify.hit.text}"`); }
    if (isSplit) { score += 5; reasons.push('one character per cell'); }
    else if (token.spacedOut) { score += 1; reasons.push('spaced out'); }
    if (doc.source === 'html') {
      if (style.large) { score += 4; reasons.push('large font'); }
      if (style.bold) { score += 2; reasons.push('bold'); }
      if (style.mono) { score += 3; reasons.push('monospace'); }
      if (style.spaced) { score += 3; reasons.push('letter-spaced'); }
      if (alone && !isSplit) { score += 5; reasons.push('alone in its block'); }
    } else if (doc.source === 'text' && alone) { score += 4; reasons.push('on a line of its own'); }
    occurrences.push({ token, doc, blockIndex, score, reasons, docStart });
  }
  return { occurrences, rejected };
}

function rank(occurrences: Occurrence[]): OtpCandidate[] {
  const byCode = new Map<string, { best: Occurrence; count: number; sources: Set<ExtractedFrom>; order: number }>();
  occurrences.forEach((o, order) => {
    const entry = byCode.get(o.token.code);
    if (!entry) { byCode.set(o.token.code, { best: o, count: 1, sources: new Set([o.doc.source]), order }); return; }
    entry.count++;
    entry.sources.add(o.doc.source);
    if (o.score > entry.best.score || (o.score === entry.best.score && o.doc.source !== 'subject' && entry.best.doc.source === 'subject')) entry.best = o;
  });
  const out: Array<OtpCandidate & { order: number }> = [];
  for (const [code, e] of byCode) {
    let score = e.best.score;
    const reasons = [...e.best.reasons];
    if (e.sources.has('subject') && e.best.doc.source !== 'subject') { score += 3; reasons.push('also in the subject'); }
    const bodyCount = occurrences.filter((o) => o.token.code === code && o.doc.source === e.best.doc.source && o.doc.source !== 'subject').length;
    if (bodyCount > 1) { score += 1; reasons.push(`appears ${bodyCount} times`); }
    out.push({ code, raw: e.best.token.raw, score, reasons, source: e.best.doc.source, order: e.order });
  }
  out.sort((a, b) => b.score - a.score || a.order - b.order);
  return out.map(({ order: _order, ...c }) => c);
}

function analyze(input: NormalizedInput, options: OtpOptions): Analysis {
  const subject = input.subject !== null ? analyzeDoc(textDoc(input.subject, 'subject'), options) : { occurrences: [], rejected: [] };
  const rejected: RejectedOtp[] = [...subject.rejected];
  let occurrences: Occurrence[] = [];
  if (input.html !== null) {
    const html = analyzeDoc(htmlDoc(input.html), options);
    occurrences = html.occurrences;
    rejected.push(...html.rejected);
  }
  let candidates = rank([...occurrences, ...subject.occurrences]);
  if (input.text !== null && !candidates.some((c) => c.score >= OTP_MIN_SCORE && c.source !== 'subject')) {
    const text = analyzeDoc(textDoc(input.text, 'text'), options);
    occurrences = [...occurrences, ...text.occurrences];
    rejected.push(...text.rejected);
    candidates = rank([...occurrences, ...subject.occurrences]);
  }
  const accepted = new Set(candidates.map((c) => c.code));
  const seen = new Set<string>();
  const uniqueRejected = rejected.filter((r) => {
    const key = `${r.raw}\u0000${r.reason}`;
    if (seen.has(key) || accepted.has(normalizeCode(r.raw))) return false;
    seen.add(key);
    return true;
  });
  return { candidates, rejected: uniqueRejected };
}

/**
 * Lists the one-time-code candidates of a message, best first, each with a
 * score and the reasons for it. Looks at the HTML body (with its styling),
 * the text body when the HTML has no convincing candidate, and the subject.
 *
 * Candidates are 4–8 digits or upper-case letters mixed with digits,
 * optionally grouped (`123 456`, `123-456`, `1 2 3 4 5 6`, one digit per
 * table cell); `code` has the separators removed and `raw` keeps them.
 * Ruled out entirely: colours, dates, times, phone numbers, prices,
 * percentages, decimals, years standing alone, numbers labelled as order /
 * invoice / reference / ticket / promo code / postal code (in several
 * languages), street numbers and postal codes near address words, and
 * anything inside a URL or an email address. Ranking favours nearness to
 * words like code, verification, OTP, passcode, PIN (in en, de, fr, es, it,
 * pt, nl, pl, sv, da, ru, tr, ja, zh, ko), large, bold, monospace or
 * letter-spaced text, and a code alone in its cell or line.
 *
 * @example
 * ```ts
 * const [best] = extractOtps({ html, text, subject });
 * console.log(best?.code, best?.reasons);
 * ```
 */
export function extractOtps(source: ExtractSource, options: OtpOptions = {}): OtpCandidate[] {
  return analyze(normalizeInput(source), options).candidates;
}

/**
 * Returns the message's one-time code (separators removed), or throws an
 * {@link OtpNotFoundError} listing what was considered and why it was
 * rejected. A candidate needs a score of at least {@link OTP_MIN_SCORE}:
 * a code word nearby or visual emphasis, not just the right number of digits.
 *
 * @example
 * ```ts
 * const code = extractOtp({ html: message.html, text: message.text, subject: message.subject });
 * await page.getByLabel('Code').fill(code);
 * ```
 */
export function extractOtp(source: ExtractSource, options: OtpOptions = {}): string {
  const input = normalizeInput(source);
  const { candidates, rejected } = analyze(input, options);
  const best = candidates[0];
  if (best && best.score >= OTP_MIN_SCORE) return best.code;
  const where = [input.html !== null && 'HTML body', input.text !== null && 'text body', input.subject !== null && 'subject'].filter(Boolean).join(', ');
  throw new OtpNotFoundError(where ? `in the ${where}` : 'in an empty message', candidates, rejected);
}
