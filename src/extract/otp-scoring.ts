/**
 * Ranking one-time-code candidates: labels and phone words that rule a number
 * out, nearness to code words, styling, and how often and where a code
 * appears. Every weight is named in {@link WEIGHTS}.
 */
import {
  ADDRESS_WORDS, ADDRESS_WORDS_CJK, CAPITAL_WORDS, CODE_WORDS, CODE_WORDS_CJK,
  VERIFY_WORDS, VERIFY_WORDS_CJK, compileWords,
} from './lexicon.ts';
import { PLAIN, type Block, type Doc, type Style } from './otp-document.ts';
import { nameWithNumber } from './otp-names.ts';
import { paragraphBefore } from './otp-announce.ts';
import { CODE_WORD_IN_CLAUSE, GAP, LABEL_AFTER, LABEL_BEFORE, labelAbove, offerAround, PHONE_BEFORE } from './otp-labels.ts';
import { tokenEvidence } from './otp-tokens.ts';
import { usedTo } from './otp-use.ts';
import type { Token } from './otp-candidates.ts';
import type { ExtractedFrom, OtpCandidate } from './types.ts';

/** The points a candidate earns (or loses) for each piece of evidence. */
export const WEIGHTS = {
  /** Six digits, the most common length of a code. */
  sixDigits: 2,
  /** Any other number of digits. */
  otherDigits: 1,
  /** A number that reads as a year (1990–2099) but was not ruled out. */
  year: -8,
  /** A code word right next to the candidate; loses a point every `codeWordStep` characters away. */
  codeWordMax: 12,
  codeWordStep: 12,
  /** Code words further than this never count. */
  codeWordReach: 150,
  /** A verifying word ("verify", "Bestätigung") next to it, when there is no code word. */
  verifyWordMax: 4,
  verifyWordStep: 20,
  verifyWordReach: 80,
  /** One character per table cell or box. */
  oneCharPerCell: 5,
  /** Written with a space or hyphen between every character. */
  spacedOut: 1,
  /** HTML styling of the candidate's text. */
  large: 4,
  bold: 2,
  monospace: 3,
  letterSpaced: 3,
  /** Alone in its HTML block or cell. */
  aloneInBlock: 5,
  /** On a line of its own in a text body. */
  ownLine: 4,
  /** Also in the subject line. */
  alsoInSubject: 3,
  /** More than once in the same body. */
  repeated: 1,
  /** Asked to be used to verify, confirm or sign in ("Use 246810 to verify", "Entrez 246810 pour confirmer"). */
  usedTo: 10,
  /** A letter-only code needs a code word at most this far away (in the distance {@link nearest} measures). */
  letterCodeWordReach: 100,
} as const;

const CODE_RE = compileWords(CODE_WORDS, CODE_WORDS_CJK);
const CODE_ONE = new RegExp(CODE_RE.source, 'iu');
const VERIFY_RE = compileWords(VERIFY_WORDS, VERIFY_WORDS_CJK);
const ADDRESS_RE = compileWords(ADDRESS_WORDS, ADDRESS_WORDS_CJK);
const YEAR = /^(?:199\d|20\d\d)$/;
const YEAR_BEFORE = /(?<![\p{L}])(?:since|in|from|until|till|by|of|year|class of|seit|im|ab|bis|depuis|en|desde|dal|nel|sedan|år|od|w|roku|с|в|до)\s*$/iu;

// "code de connexion est :", "código de acceso:", "codice di verifica:": a code word with its qualifier.
const CODE_BEFORE = new RegExp(`(?:${CODE_RE.source})(?:\\s+(?:de|di|da|do|del|d')\\s*\\p{L}+)?${GAP}$`, 'iu');

/**
 * Whether the text right before a number names it as a code ("verification
 * code: ", "your code is "), not a phone number or another kind of code
 * ("Gutscheincode:", "promo code:").
 */
export function namesCode(before: string): boolean {
  return CODE_BEFORE.test(before) && !PHONE_BEFORE.test(before) && !LABEL_BEFORE.test(before);
}

/** One place a candidate occurs, with its score there. */
export interface Occurrence { token: Token; doc: Doc; blockIndex: number; score: number; reasons: string[]; docStart: number }

interface WordHit { start: number; end: number; text: string }

/** How a word is spelled across a document: its first spelling, and whether it is also written another way. */
interface Spelling { first: string; other: boolean }

/**
 * The code, verifying and address words of a document, outside masked text,
 * and how each run of letters (`letters`) and of letters and digits (`alnum`)
 * is spelled, by its lower case: built once, so a candidate's "also written in
 * another case" is a look-up, not a search of the whole document.
 */
export interface WordHits { code: WordHit[]; verify: WordHit[]; address: WordHit[]; letters: () => Map<string, Spelling>; alnum: () => Map<string, Spelling> }

function spellings(text: string, re: RegExp): Map<string, Spelling> {
  const out = new Map<string, Spelling>();
  for (const m of text.matchAll(re)) {
    const key = m[0].toLowerCase();
    const seen = out.get(key);
    if (!seen) out.set(key, { first: m[0], other: false });
    else if (!seen.other && seen.first !== m[0]) seen.other = true;
  }
  return out;
}

/** A value computed on first use only (most mail has no letter or mixed-case candidate, and never needs the spellings). */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** Whether the document also writes `code` (as a whole run) in a spelling other than `code`. */
function writtenOtherwise(index: Map<string, Spelling>, code: string): boolean {
  const seen = index.get(code.toLowerCase());
  return seen !== undefined && (seen.other || seen.first !== code);
}

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

/** Finds the code, verifying and address words of `doc`; `masked` marks the characters inside masks. */
export function findWords(doc: Doc, masked: Uint8Array): WordHits {
  return {
    code: wordHits(doc, CODE_RE, masked), verify: wordHits(doc, VERIFY_RE, masked), address: wordHits(doc, ADDRESS_RE, masked),
    letters: once(() => spellings(doc.text, /\p{L}+/gu)), alnum: once(() => spellings(doc.text, /[\p{L}\p{N}]+/gu)),
  };
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

/**
 * Why the text right around a token says it is not a code (a label such as
 * "order", a phone word, a nearby address word), or `null`.
 */
function ruledOutByContext(doc: Doc, block: Block, token: Token, words: WordHits, kwDistance: number): string | null {
  const before = block.text.slice(Math.max(0, token.start - 60), token.start);
  const after = block.text.slice(token.end, token.end + 60);
  let label = LABEL_BEFORE.exec(before);
  // "the OTP for this transaction is 123456": a verb between label and number, and a code word earlier in
  // the clause, means the label is not the number's name.
  if (label?.[1] && CODE_WORD_IN_CLAUSE.test(before.slice(Math.max(0, label.index - 50), label.index))) label = null;
  label ??= LABEL_AFTER.exec(after);
  const isSplit = token.split !== undefined;
  if (label && !isSplit) return `labelled "${label[0].trim().replace(/[\s:：#№().\-–—=]+$/u, '')}" (not a one-time code)`;
  const above = !isSplit && placementOf(block, token).alone ? labelAbove(doc, blockIndexAt(doc, block.offset)) : null;
  if (above) return `set apart under "${above}" (the paragraph before labels it: not a one-time code)`;
  const phone = PHONE_BEFORE.exec(before);
  if (phone && !isSplit) return `follows "${phone[0].trim()}" (a phone number)`;
  const offer = isSplit ? null : offerAround(before, after);
  if (offer) return `in a sentence that makes an offer ("${offer}"): a promotional code, not a one-time code`;
  if (token.kind === 'digits' && (token.code.length === 4 || token.code.length === 5)) {
    const addr = nearest(doc, words.address, block.offset + token.start, block.offset + token.end);
    if (addr && addr.distance <= 60 && addr.distance < kwDistance) return `near the address word "${addr.hit.text}" (a street number or postal code)`;
  }
  return null;
}

interface Placement { alone: boolean; style: Style }

/** Whether the token stands alone in its block (or cells), and how it is styled. */
function placementOf(block: Block, token: Token): Placement {
  const rest = block.text.slice(0, token.start) + block.text.slice(token.end);
  return { alone: token.split !== undefined || /^[\s\p{P}\p{S}]*$/u.test(rest), style: token.split ?? styleOver(block, token.start, token.end) };
}

/** Points for the candidate's styling and for standing apart from other text. */
function layoutScore(doc: Doc, token: Token, { alone, style }: Placement, reasons: string[]): number {
  const isSplit = token.split !== undefined;
  let score = 0;
  const add = (points: number, reason: string): void => { score += points; reasons.push(reason); };
  if (isSplit) add(WEIGHTS.oneCharPerCell, 'one character per cell');
  else if (token.spacedOut) add(WEIGHTS.spacedOut, 'spaced out');
  if (doc.source === 'html') {
    if (style.large) add(WEIGHTS.large, 'large font');
    if (style.bold) add(WEIGHTS.bold, 'bold');
    if (style.mono) add(WEIGHTS.monospace, 'monospace');
    if (style.spaced) add(WEIGHTS.letterSpaced, 'letter-spaced');
    if (alone && !isSplit) add(WEIGHTS.aloneInBlock, 'alone in its block');
  } else if (doc.source === 'text' && alone) add(WEIGHTS.ownLine, 'on a line of its own');
  return score;
}

const VOWEL = /[AEIOUY]/;
const CAPS_BEFORE = /(?<![\p{L}])\p{Lu}{2,}\s+$/u;
const CAPS_AFTER = /^\s+\p{Lu}{2,}(?![\p{L}])/u;

/**
 * Letters alone make a code only with evidence: a code word nearby, and one of
 * being named a code right before it, being set apart or styled like a code,
 * or being written in a consonant alphabet (no vowels, as systems that avoid
 * spelling words use). Words in capitals, words the message also writes in
 * lower case (brand names) and words of a phrase in capitals (headings) are
 * never codes. Returns why the token is ruled out (`null`: an ordinary word,
 * not worth reporting), or the evidence for it.
 */
function letterEvidence(words: WordHits, block: Block, token: Token, kwDistance: number, place: Placement, announced: boolean): { ruledOut: string | null } | { evidence: string[] } {
  // Ordinary words are not reported as ruled out: they never looked like a code.
  if (CAPITAL_WORDS.has(token.code)) return { ruledOut: null };
  if (writtenOtherwise(words.letters(), token.code)) return { ruledOut: null };
  if (CAPS_BEFORE.test(block.text.slice(0, token.start)) || CAPS_AFTER.test(block.text.slice(token.end))) return { ruledOut: null };
  const far = kwDistance > WEIGHTS.letterCodeWordReach;
  if (far && !announced) return { ruledOut: 'letters only, with no code word nearby' };
  const evidence: string[] = [];
  if (namesCode(block.text.slice(Math.max(0, token.start - 60), token.start))) evidence.push('named a code right before it');
  if (place.alone || place.style.large || place.style.bold || place.style.mono || place.style.spaced) evidence.push('set apart like a code');
  if (!VOWEL.test(token.code)) evidence.push('consonants only');
  if (evidence.length === 0) return { ruledOut: 'letters only, and only a nearby code word says code' };
  // Named only early in the paragraph before: a word on a line of its own needs more than standing apart.
  if (far && evidence.length === 1 && place.alone) return { ruledOut: 'letters only: the code word is early in the paragraph before, and only standing apart says code' };
  return { evidence: [`letters only: ${evidence.join(', ')}`] };
}

/** The text of a line that a wrapped URL or token goes on from (`…?t=Qm9vayB0b`). */
const CONTINUED = /(?:(?:https?:\/\/|www\.)\S*|[=/&?%+_-])$/;

/**
 * Mixed-case codes (`hT4wq9`) need the evidence letter-only codes need: a
 * code word nearby, and named a code right before it or set apart or styled
 * like a code. Names with a number (`Python3`, `iPhone15`) unless named a
 * code right before them, tokens the message also writes in another case,
 * and the rest of a URL or token wrapped onto the next line are never codes.
 */
function mixedEvidence(doc: Doc, words: WordHits, blockIndex: number, token: Token, kwDistance: number, place: Placement): { ruledOut: string } | { evidence: string[] } {
  const block = doc.blocks[blockIndex];
  if (!block) return { ruledOut: 'outside the text' };
  const named = namesCode(block.text.slice(Math.max(0, token.start - 60), token.start));
  // Named a code right before it ("enter the code Mion14"), a token is the code even if it could be a name.
  if (!named && nameWithNumber(token.code)) return { ruledOut: 'mixed case: reads as a name with a number (like Python3 or iPhone15), not a code' };
  if (writtenOtherwise(words.alnum(), token.code)) return { ruledOut: 'mixed case: the message also writes it in another case (a name, not a code)' };
  const previous = doc.blocks[blockIndex - 1];
  if (token.start === 0 && previous && CONTINUED.test(previous.text)) return { ruledOut: 'mixed case: continues the URL or token on the line before' };
  if (kwDistance > WEIGHTS.letterCodeWordReach) return { ruledOut: 'mixed case letters and digits, with no code word nearby' };
  const evidence: string[] = [];
  if (named) evidence.push('named a code right before it');
  if (place.alone || place.style.large || place.style.bold || place.style.mono || place.style.spaced) evidence.push('set apart like a code');
  if (evidence.length === 0) return { ruledOut: 'mixed case letters and digits, and only a nearby code word says code' };
  return { evidence: [`mixed case: ${evidence.join(', ')}`] };
}

/**
 * Scores one token where it occurs, or says why it is not a code at all.
 * Returns the occurrence, or the reason it was ruled out (`null` for an
 * ordinary word that is not worth reporting).
 */
export function scoreToken(doc: Doc, blockIndex: number, token: Token, words: WordHits): Occurrence | string | null {
  const block = doc.blocks[blockIndex];
  if (!block) return 'outside the text';
  const docStart = block.offset + token.start;
  const docEnd = block.offset + token.end;
  const kw = nearest(doc, words.code, docStart, docEnd);
  const kwDistance = kw?.distance ?? Infinity;
  const place = placementOf(block, token);
  // Set apart right after the paragraph that names a code ("Your sign-in code is listed below. Please enter it …"), however long that paragraph.
  const before = place.alone ? paragraphBefore(doc, blockIndex) : null;
  const announced = before !== null && CODE_ONE.test(before);
  const ruledOut = ruledOutByContext(doc, block, token, words, kwDistance);
  if (ruledOut) return ruledOut;

  const reasons: string[] = [];
  let score = 0;
  if (token.kind === 'letters') {
    const letters = letterEvidence(words, block, token, kwDistance, place, announced);
    if ('ruledOut' in letters) return letters.ruledOut;
    reasons.push(...letters.evidence);
  }
  if (token.kind === 'mixed') {
    const mixed = mixedEvidence(doc, words, blockIndex, token, announced ? Math.min(kwDistance, WEIGHTS.letterCodeWordReach) : kwDistance, place);
    if ('ruledOut' in mixed) return mixed.ruledOut;
    reasons.push(...mixed.evidence);
  }
  if (token.kind === 'grouped' || token.kind === 'lower' || token.kind === 'long' || token.kind === 'dashed' || token.kind === 'words') {
    const named = namesCode(block.text.slice(Math.max(0, token.start - 60), token.start));
    const styled = place.style.large || place.style.bold || place.style.mono || place.style.spaced;
    const verdict = tokenEvidence(doc, blockIndex, token, kwDistance, { alone: place.alone, styled }, named, writtenOtherwise(words.alnum(), token.code));
    if ('ruledOut' in verdict) return verdict.ruledOut;
    reasons.push(...verdict.evidence);
    score += verdict.points;
  }
  if (token.kind === 'digits' && YEAR.test(token.code)) {
    const before = block.text.slice(Math.max(0, token.start - 60), token.start);
    if ((kwDistance > 20 && !place.alone) || YEAR_BEFORE.test(before)) return 'a year';
    score += WEIGHTS.year;
    reasons.push('looks like a year');
  }
  if (token.kind === 'digits') { score += token.code.length === 6 ? WEIGHTS.sixDigits : WEIGHTS.otherDigits; reasons.push(`${token.code.length} digits`); }
  const verify = nearest(doc, words.verify, docStart, docEnd);
  const strong = kw && kwDistance <= WEIGHTS.codeWordReach ? Math.max(1, Math.round(WEIGHTS.codeWordMax - kwDistance / WEIGHTS.codeWordStep)) : 0;
  const weak = verify && verify.distance <= WEIGHTS.verifyWordReach ? Math.max(1, Math.round(WEIGHTS.verifyWordMax - verify.distance / WEIGHTS.verifyWordStep)) : 0;
  // "Use 246810 to verify": the purpose after the number is the verifying word, so it is not counted twice.
  // Digits only: "Use SAVE20 to complete your order" is a promo code.
  const use = token.kind === 'digits' ? usedTo(block.text.slice(Math.max(0, token.start - 40), token.start), block.text.slice(token.end, token.end + 80)) : null;
  if (use) { score += WEIGHTS.usedTo; reasons.push(`asked to be used to verify, confirm or sign in ("${use.verb} … ${use.purpose}")`); }
  // Letters and mixed case announced in the paragraph before count its code word as if it were at the edge of their reach.
  const announcedBy = announced && strong === 0 && (token.kind === 'letters' || token.kind === 'mixed') ? CODE_ONE.exec(before ?? '')?.[0] : undefined;
  if (strong > 0 && kw) { score += strong; reasons.push(`near "${kw.hit.text}"`); }
  else if (announcedBy) { score += Math.max(1, Math.round(WEIGHTS.codeWordMax - WEIGHTS.letterCodeWordReach / WEIGHTS.codeWordStep)); reasons.push(`announced in the paragraph before ("${announcedBy}")`); }
  else if (weak > 0 && verify && !use) { score += weak; reasons.push(`near "${verify.hit.text}"`); }
  score += layoutScore(doc, token, place, reasons);
  return { token, doc, blockIndex, score, reasons, docStart };
}

/** Merges the occurrences of each code into one candidate, best first. */
export function rank(occurrences: Occurrence[]): OtpCandidate[] {
  const byCode = new Map<string, { best: Occurrence; count: number; sources: Set<ExtractedFrom>; order: number }>();
  occurrences.forEach((o, order) => {
    const entry = byCode.get(o.token.code);
    if (!entry) { byCode.set(o.token.code, { best: o, count: 1, sources: new Set([o.doc.source]), order }); return; }
    entry.count++;
    entry.sources.add(o.doc.source);
    if (o.score > entry.best.score || (o.score === entry.best.score && o.doc.source !== 'subject' && entry.best.doc.source === 'subject')) entry.best = o;
  });
  const inBody = new Map<string, Map<ExtractedFrom, number>>();
  for (const o of occurrences) {
    const counts = inBody.get(o.token.code) ?? new Map<ExtractedFrom, number>();
    counts.set(o.doc.source, (counts.get(o.doc.source) ?? 0) + 1);
    inBody.set(o.token.code, counts);
  }
  const out: Array<OtpCandidate & { order: number }> = [];
  for (const [code, e] of byCode) {
    let score = e.best.score;
    const reasons = [...e.best.reasons];
    if (e.sources.has('subject') && e.best.doc.source !== 'subject') { score += WEIGHTS.alsoInSubject; reasons.push('also in the subject'); }
    const bodyCount = e.best.doc.source === 'subject' ? 0 : inBody.get(code)?.get(e.best.doc.source) ?? 0;
    if (bodyCount > 1) { score += WEIGHTS.repeated; reasons.push(`appears ${bodyCount} times`); }
    out.push({ code, raw: e.best.token.raw, score, reasons, source: e.best.doc.source, order: e.order });
  }
  out.sort((a, b) => b.score - a.score || a.order - b.order);
  return out.map(({ order: _order, ...c }) => c);
}
