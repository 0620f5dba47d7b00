/**
 * One-time codes: reads the bodies ({@link htmlDoc}, {@link textDoc}), masks
 * what cannot be a code ({@link masksOf}), finds code-shaped tokens
 * ({@link tokensOf}) and ranks them ({@link scoreToken}, {@link rank}).
 */
import { OtpNotFoundError } from './errors.ts';
import { normalizeInput, type ExtractSource, type NormalizedInput } from './input.ts';
import { lengthRange, mixedTokensOf, normalizeCode, patternTokens, shape, tokensOf, type OtpOptions, type Token } from './otp-candidates.ts';
import { htmlDoc, textDoc, type Doc } from './otp-document.ts';
import { EXTRACTION_BOUNDS, noteBound, type ExtractionBound } from './dom.ts';
import { nearMisses } from './otp-explain.ts';
import { announcement } from './otp-announce.ts';
import { digitCount, masksOf, type Mask } from './otp-masks.ts';
import { findWords, namesCode, rank, scoreToken, type Occurrence } from './otp-scoring.ts';
import type { OtpCandidate, OtpCandidates, RejectedOtp } from './types.ts';
import { creditSoleNumber, originBoundLine, type OriginBound } from './sms.ts';

export type { OtpOptions } from './otp-candidates.ts';
export { normalizeCode } from './otp-candidates.ts';

/** Candidates scoring below this are reported but not returned by `extractOtp`. */
export const OTP_MIN_SCORE = 6;

interface Analysis { candidates: OtpCandidate[]; rejected: RejectedOtp[]; bounds: ExtractionBound[]; docs: Doc[] }
interface Located { token: Token; blockIndex: number }

type Yield = { yields: true; announcedBy?: string } | { yields: false; note?: string };

/**
 * Whether a yielding mask steps aside: the caller asked for this length or a
 * pattern, the text names a code right before it, or the number stands alone
 * in its block and the block or paragraph before names or announces a code.
 * `note` says why an announcement did not count.
 */
function maskYields(mask: Mask, doc: Doc, blockIndex: number, options: OtpOptions): Yield {
  if (!mask.yields) return { yields: false };
  if (options.pattern) return { yields: true };
  const block = doc.blocks[blockIndex];
  if (!block) return { yields: false };
  const text = block.text.slice(mask.start, mask.end);
  const [min, max] = lengthRange(options, 'digits');
  const digits = digitCount(text);
  if (digits < min || digits > max) return { yields: false };
  if (options.length !== undefined) return { yields: true };
  if (namesCode(block.text.slice(Math.max(0, mask.start - 60), mask.start))) return { yields: true };
  const alone = /^[\s\p{P}\p{S}]*$/u.test(block.text.slice(0, mask.start) + block.text.slice(mask.end));
  if (!alone) return { yields: false };
  const previous = doc.blocks[blockIndex - 1];
  if (previous !== undefined && namesCode(previous.text)) return { yields: true };
  const announced = announcement(doc, blockIndex, text);
  if (!announced) return { yields: false };
  return 'word' in announced ? { yields: true, announcedBy: announced.word } : { yields: false, note: announced.declined };
}

/** A mask that stepped aside because the paragraph before announced a code. */
interface Announced { blockIndex: number; start: number; end: number; word: string }

/** The code-shaped tokens of a document, what the masks ruled out, the masked characters, and the masks an announcement lifted. */
function collectTokens(doc: Doc, options: OtpOptions): { tokens: Located[]; rejected: RejectedOtp[]; masked: Uint8Array; announced: Map<number, Announced[]> } {
  const tokens: Located[] = [];
  const rejected: RejectedOtp[] = [];
  const announced = new Map<number, Announced[]>();
  const masked = new Uint8Array(doc.text.length);
  const limit = EXTRACTION_BOUNDS.candidates;
  let blockIndex = 0;
  for (; blockIndex < doc.blocks.length && tokens.length < limit && rejected.length < limit; blockIndex++) {
    const block = doc.blocks[blockIndex] as Doc['blocks'][number];
    const masks: Mask[] = [];
    for (const k of masksOf(block.text)) {
      const decision = maskYields(k, doc, blockIndex, options);
      if (decision.yields) {
        if (decision.announcedBy) announced.set(blockIndex, [...announced.get(blockIndex) ?? [], { blockIndex, start: k.start, end: k.end, word: decision.announcedBy }]);
        continue;
      }
      masks.push(k);
      masked.fill(1, k.start + block.offset, k.end + block.offset);
      const text = block.text.slice(k.start, k.end);
      const shown = text.replace(/^[\s,;]+/, '');
      const reason = decision.note ? `${k.reason}; ${decision.note}` : k.reason;
      if (digitCount(text) >= 4) rejected.push({ raw: shown.length > 50 ? `${shown.slice(0, 49)}…` : shown, reason, source: doc.source });
    }
    const parts: Array<{ raw: string; part: string }> = [];
    for (const token of tokensIn(block.text, masks, options, parts)) tokens.push({ token, blockIndex });
    for (const p of parts) rejected.push({ raw: p.part, reason: `part of the longer identifier ${p.raw}`, source: doc.source });
  }
  if (blockIndex < doc.blocks.length) {
    noteBound(doc.bounds, { bound: 'candidates', limit, message: `only the first ${limit} code-shaped strings of the ${doc.source === 'html' ? 'HTML body' : doc.source === 'text' ? 'text body' : 'subject'} were considered (its last ${doc.blocks.length - blockIndex} of ${doc.blocks.length} blocks were not read)` });
  }
  if (!options.pattern) {
    for (const split of doc.splits) {
      if (split.blockIndex >= blockIndex) break;
      const code = normalizeCode(split.raw);
      const kind = shape(code, options);
      const block = doc.blocks[split.blockIndex];
      if (!kind || !block) continue;
      tokens.push({ token: { raw: split.raw, code, start: 0, end: block.text.length, kind, spacedOut: true, split: split.style }, blockIndex: split.blockIndex });
    }
  }
  for (const h of doc.hidden) {
    if (rejected.length >= limit) break;
    for (const token of tokensIn(h.text.slice(0, EXTRACTION_BOUNDS.block), masksOf(h.text.slice(0, EXTRACTION_BOUNDS.block)), options, [])) rejected.push({ raw: token.raw, reason: `hidden (${h.reason})`, source: doc.source });
  }
  return { tokens, rejected, masked, announced };
}

/** The code-shaped tokens of one piece of text outside its masks: the caller's pattern, or the built-in shapes. */
function tokensIn(text: string, masks: Mask[], options: OtpOptions, parts: Array<{ raw: string; part: string }>): Token[] {
  if (options.pattern) return patternTokens(text, options.pattern, options).filter((t) => !masks.some((k) => t.start < k.end && t.end > k.start));
  const blanked = blank(text, masks);
  // A mask that ends or starts inside a run of letters and digits (`0Am` of `0Am0AAA`, read as a time)
  // must not leave the rest of the run to stand as a code of its own: that rest is a piece of a longer word.
  const glued = (t: Token) => /[A-Za-z0-9]/.test(text[t.start - 1] ?? '') || /[A-Za-z0-9]/.test(text[t.end] ?? '');
  return [...tokensOf(blanked, options, parts), ...mixedTokensOf(blanked, options, parts)].filter((t) => {
    if (!glued(t)) return true;
    parts.push({ raw: text.slice(t.start, t.end), part: t.code });
    return false;
  });
}

/** `text` with its masked stretches (in order, not overlapping) replaced by a character no code contains. */
function blank(text: string, masks: Mask[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const k of masks) {
    parts.push(text.slice(at, k.start), '¤'.repeat(k.end - k.start));
    at = k.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/**
 * Scores the tokens of one document. `short` marks a text that came with no
 * HTML and no subject (how an SMS arrives): its only number may be its code.
 */
function analyzeDoc(doc: Doc, options: OtpOptions, short = false): { occurrences: Occurrence[]; rejected: RejectedOtp[]; bounds: ExtractionBound[]; doc: Doc } {
  const { tokens, rejected, masked, announced } = collectTokens(doc, options);
  const words = findWords(doc, masked);
  const occurrences: Occurrence[] = [];
  for (const { token, blockIndex } of tokens) {
    const scored = scoreToken(doc, blockIndex, token, words);
    if (typeof scored === 'string') rejected.push({ raw: token.raw, reason: scored, source: doc.source });
    else if (scored) {
      const by = announced.get(blockIndex)?.find((a) => token.start < a.end && token.end > a.start);
      if (by) scored.reasons.unshift(`announced in the paragraph before ("${by.word}"), then set apart`);
      occurrences.push(scored);
    }
  }
  if (short && !options.pattern) creditSoleNumber(occurrences, doc.text);
  return { occurrences, rejected, bounds: doc.bounds, doc };
}

/**
 * Puts the code of an SMS's origin-bound line first among the candidates, as
 * `extractOtp` returns it: the line names its code outright, so it outranks
 * whatever the general reading found, keeps that reading's reasons after its
 * own, and is no longer listed as ruled out (as a `#` reference, say).
 */
function boundFirst(bound: OriginBound, candidates: OtpCandidate[], rejected: RejectedOtp[]): { candidates: OtpCandidate[]; rejected: RejectedOtp[] } {
  const found = candidates.find((c) => c.code === bound.code);
  const top = candidates[0]?.score ?? 0;
  const reason = `the domain-bound code of the origin-bound last line "${bound.line}" (WebOTP / iOS: the code for ${bound.host})`;
  const first: OtpCandidate = {
    code: bound.code, raw: found?.raw ?? bound.code, score: Math.max(OTP_MIN_SCORE, top + 1), reasons: [reason, ...found?.reasons ?? []], source: 'text',
  };
  return {
    candidates: [first, ...candidates.filter((c) => c !== found)],
    rejected: rejected.filter((r) => normalizeCode(r.raw).replace(/^#/, '') !== bound.code),
  };
}

function analyze(input: NormalizedInput, options: OtpOptions): Analysis {
  const subject = input.subject !== null ? analyzeDoc(textDoc(input.subject, 'subject'), options) : null;
  const rejected: RejectedOtp[] = [...subject?.rejected ?? []];
  const bounds: ExtractionBound[] = [...subject?.bounds ?? []];
  const docs: Doc[] = subject ? [subject.doc] : [];
  let occurrences: Occurrence[] = [];
  if (input.html !== null) {
    const html = analyzeDoc(htmlDoc(input.html), options);
    docs.unshift(html.doc);
    occurrences = html.occurrences;
    rejected.push(...html.rejected);
    bounds.push(...html.bounds);
  }
  const fromSubject = subject?.occurrences ?? [];
  let candidates = rank([...occurrences, ...fromSubject]);
  if (input.text !== null && !candidates.some((c) => c.score >= OTP_MIN_SCORE && c.source !== 'subject')) {
    const text = analyzeDoc(textDoc(input.text, 'text'), options, input.html === null && input.subject === null);
    docs.push(text.doc);
    occurrences = [...occurrences, ...text.occurrences];
    rejected.push(...text.rejected);
    bounds.push(...text.bounds);
    candidates = rank([...occurrences, ...fromSubject]);
  }
  const accepted = new Set(candidates.map((c) => c.code));
  const seen = new Set<string>();
  const uniqueRejected = rejected.filter((r) => {
    const key = `${r.raw}\u0000${r.reason}`;
    if (seen.has(key) || accepted.has(normalizeCode(r.raw))) return false;
    seen.add(key);
    return true;
  });
  const bound = originBoundLine(input.text, options); // an SMS's WebOTP line names its code (src/extract/sms.ts)
  if (bound) return { ...boundFirst(bound, candidates, uniqueRejected), bounds, docs };
  return { candidates, rejected: uniqueRejected, bounds, docs };
}

/**
 * Lists the one-time-code candidates of a message, best first, each with a
 * score and the reasons for it; `rejected` on the result lists what was ruled
 * out and why. Looks at the visible text of the HTML body (with its
 * styling), the text body when the HTML has no convincing candidate, and the
 * subject.
 *
 * Candidates are 4–10 digits, 4–10 upper-case letters mixed with digits,
 * 6–10 upper-case letters alone, or 6–10 characters mixing lower case, upper
 * case and digits (`hT4wq9`); letters alone and mixed case only where the
 * evidence says code (a code word nearby and, besides, named a code right
 * before it, set apart or styled like a code, or — letters alone —
 * consonants only), never names with a number (`Python3`) or pieces of
 * base64 and tokens. Digit and upper-case codes may be grouped (`123 456`, `482-913-067`,
 * `KWNR-TXBH`, `1 2 3 4 5 6`, one character per table cell); `code` has the
 * separators removed and `raw` keeps them. Ruled out entirely: hidden text,
 * colours, dates, times, phone numbers, prices,
 * percentages, decimals, years standing alone, numbers labelled as order /
 * invoice / reference / ticket / promo code / postal code (in several
 * languages), street numbers and postal codes near address words, and
 * anything inside a URL or an email address. A phone number, date or `#`
 * reference yields when the text names a code right before it, when it
 * stands alone after a paragraph that announces a code (and names no phone,
 * holds no number, and the number is laid out as a code), or the caller's
 * `length` or `pattern` asks for it. Ranking favours nearness to
 * words like code, verification, OTP, passcode, PIN (in en, de, fr, es, it,
 * pt, nl, pl, sv, da, ru, tr, ja, zh, ko), large, bold, monospace or
 * letter-spaced text, and a code alone in its cell or line. An SMS whose
 * last line is origin-bound (`@app.example #123456`, the WebOTP and iOS
 * form) has that line's code first, with a reason saying it is the
 * domain-bound code, as {@link extractOtp} returns it.
 *
 * @example
 * ```ts
 * const [best] = extractOtps({ html, text, subject });
 * console.log(best?.code, best?.reasons);
 * ```
 */
export function extractOtps(source: ExtractSource, options: OtpOptions = {}): OtpCandidates {
  const { candidates, rejected, bounds } = analyze(normalizeInput(source), options);
  Object.defineProperty(candidates, 'rejected', { value: rejected, enumerable: false });
  return Object.defineProperty(candidates, 'bounds', { value: bounds, enumerable: false }) as OtpCandidates;
}

/**
 * Returns the message's one-time code (separators removed), or throws an
 * {@link OtpNotFoundError} listing what was considered and why it was
 * rejected. A candidate needs a score of at least 6 (`OTP_MIN_SCORE`):
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
  const bound = originBoundLine(input.text, options); // an SMS's WebOTP line names its code (src/extract/sms.ts)
  if (bound !== null) return bound.code;
  const { candidates, rejected, bounds, docs } = analyze(input, options);
  const best = candidates[0];
  if (best && best.score >= OTP_MIN_SCORE) return best.code;
  const where = [input.html !== null && 'HTML body', input.text !== null && 'text body', input.subject !== null && 'subject'].filter(Boolean).join(', ');
  const seen = new Set([...candidates.map((c) => c.code), ...rejected.map((r) => normalizeCode(r.raw))]);
  throw new OtpNotFoundError(where ? `in the ${where}` : 'in an empty message', candidates, rejected, bounds, nearMisses(docs, seen, options));
}
