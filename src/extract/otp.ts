/**
 * One-time codes: reads the bodies ({@link htmlDoc}, {@link textDoc}), masks
 * what cannot be a code ({@link masksOf}), finds code-shaped tokens
 * ({@link tokensOf}) and ranks them ({@link scoreToken}, {@link rank}).
 */
import { OtpNotFoundError } from './errors.ts';
import { normalizeInput, type ExtractSource, type NormalizedInput } from './input.ts';
import { lengthRange, mixedTokensOf, normalizeCode, patternTokens, shape, tokensOf, type OtpOptions, type Token } from './otp-candidates.ts';
import { htmlDoc, textDoc, type Doc } from './otp-document.ts';
import { announcement } from './otp-announce.ts';
import { digitCount, masksOf, type Mask } from './otp-masks.ts';
import { findWords, namesCode, rank, scoreToken, type Occurrence } from './otp-scoring.ts';
import type { OtpCandidate, OtpCandidates, RejectedOtp } from './types.ts';
import { originBoundCode } from './sms.ts';

export type { OtpOptions } from './otp-candidates.ts';
export { normalizeCode } from './otp-candidates.ts';

/** Candidates scoring below this are reported but not returned by `extractOtp`. */
export const OTP_MIN_SCORE = 6;

interface Analysis { candidates: OtpCandidate[]; rejected: RejectedOtp[] }
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
function collectTokens(doc: Doc, options: OtpOptions): { tokens: Located[]; rejected: RejectedOtp[]; masked: Uint8Array; announced: Announced[] } {
  const tokens: Located[] = [];
  const rejected: RejectedOtp[] = [];
  const announced: Announced[] = [];
  const masked = new Uint8Array(doc.text.length);
  doc.blocks.forEach((block, blockIndex) => {
    const masks: Mask[] = [];
    for (const k of masksOf(block.text)) {
      const decision = maskYields(k, doc, blockIndex, options);
      if (decision.yields) {
        if (decision.announcedBy) announced.push({ blockIndex, start: k.start, end: k.end, word: decision.announcedBy });
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
  });
  if (!options.pattern) {
    for (const split of doc.splits) {
      const code = normalizeCode(split.raw);
      const kind = shape(code, options);
      const block = doc.blocks[split.blockIndex];
      if (!kind || !block) continue;
      tokens.push({ token: { raw: split.raw, code, start: 0, end: block.text.length, kind, spacedOut: true, split: split.style }, blockIndex: split.blockIndex });
    }
  }
  for (const h of doc.hidden) {
    for (const token of tokensIn(h.text, masksOf(h.text), options, [])) rejected.push({ raw: token.raw, reason: `hidden (${h.reason})`, source: doc.source });
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

/** `text` with its masked stretches replaced by a character no code contains. */
function blank(text: string, masks: Mask[]): string {
  let out = text;
  for (const k of masks) out = out.slice(0, k.start) + '¤'.repeat(k.end - k.start) + out.slice(k.end);
  return out;
}

function analyzeDoc(doc: Doc, options: OtpOptions): { occurrences: Occurrence[]; rejected: RejectedOtp[] } {
  const { tokens, rejected, masked, announced } = collectTokens(doc, options);
  const words = findWords(doc, masked);
  const occurrences: Occurrence[] = [];
  for (const { token, blockIndex } of tokens) {
    const scored = scoreToken(doc, blockIndex, token, words);
    if (typeof scored === 'string') rejected.push({ raw: token.raw, reason: scored, source: doc.source });
    else if (scored) {
      const by = announced.find((a) => a.blockIndex === blockIndex && token.start < a.end && token.end > a.start);
      if (by) scored.reasons.unshift(`announced in the paragraph before ("${by.word}"), then set apart`);
      occurrences.push(scored);
    }
  }
  return { occurrences, rejected };
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
 * letter-spaced text, and a code alone in its cell or line.
 *
 * @example
 * ```ts
 * const [best] = extractOtps({ html, text, subject });
 * console.log(best?.code, best?.reasons);
 * ```
 */
export function extractOtps(source: ExtractSource, options: OtpOptions = {}): OtpCandidates {
  const { candidates, rejected } = analyze(normalizeInput(source), options);
  return Object.defineProperty(candidates, 'rejected', { value: rejected, enumerable: false }) as OtpCandidates;
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
  const bound = originBoundCode(input.text, options); // an SMS's WebOTP line names its code (src/extract/sms.ts)
  if (bound !== null) return bound;
  const { candidates, rejected } = analyze(input, options);
  const best = candidates[0];
  if (best && best.score >= OTP_MIN_SCORE) return best.code;
  const where = [input.html !== null && 'HTML body', input.text !== null && 'text body', input.subject !== null && 'subject'].filter(Boolean).join(', ');
  throw new OtpNotFoundError(where ? `in the ${where}` : 'in an empty message', candidates, rejected);
}
