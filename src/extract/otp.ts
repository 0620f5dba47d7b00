/**
 * One-time codes: reads the bodies ({@link htmlDoc}, {@link textDoc}), masks
 * what cannot be a code ({@link masksOf}), finds code-shaped tokens
 * ({@link tokensOf}) and ranks them ({@link scoreToken}, {@link rank}).
 */
import { OtpNotFoundError } from './errors.ts';
import { normalizeInput, type ExtractSource, type NormalizedInput } from './input.ts';
import { normalizeCode, patternTokens, shape, tokensOf, type OtpOptions, type Token } from './otp-candidates.ts';
import { htmlDoc, textDoc, type Doc } from './otp-document.ts';
import { digitCount, masksOf, type Mask } from './otp-masks.ts';
import { findWords, rank, scoreToken, type Occurrence } from './otp-scoring.ts';
import type { OtpCandidate, RejectedOtp } from './types.ts';

export type { OtpOptions } from './otp-candidates.ts';
export { normalizeCode } from './otp-candidates.ts';

/** Candidates scoring below this are reported but not returned by `extractOtp`. */
export const OTP_MIN_SCORE = 6;

interface Analysis { candidates: OtpCandidate[]; rejected: RejectedOtp[] }
interface Located { token: Token; blockIndex: number }

/** The code-shaped tokens of a document, what the masks ruled out, and the masked characters. */
function collectTokens(doc: Doc, options: OtpOptions): { tokens: Located[]; rejected: RejectedOtp[]; masked: Uint8Array } {
  const tokens: Located[] = [];
  const rejected: RejectedOtp[] = [];
  const masked = new Uint8Array(doc.text.length);
  doc.blocks.forEach((block, blockIndex) => {
    const masks = masksOf(block.text);
    for (const k of masks) {
      masked.fill(1, k.start + block.offset, k.end + block.offset);
      const text = block.text.slice(k.start, k.end);
      const shown = text.replace(/^[\s,;]+/, '');
      if (digitCount(text) >= 4) rejected.push({ raw: shown.length > 50 ? `${shown.slice(0, 49)}…` : shown, reason: k.reason, source: doc.source });
    }
    if (options.pattern) {
      for (const token of patternTokens(block.text, options.pattern, options)) {
        if (!masks.some((k) => token.start < k.end && token.end > k.start)) tokens.push({ token, blockIndex });
      }
      return;
    }
    const parts: Array<{ raw: string; part: string }> = [];
    for (const token of tokensOf(blank(block.text, masks), options, parts)) tokens.push({ token, blockIndex });
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
  return { tokens, rejected, masked };
}

/** `text` with its masked stretches replaced by a character no code contains. */
function blank(text: string, masks: Mask[]): string {
  let out = text;
  for (const k of masks) out = out.slice(0, k.start) + '¤'.repeat(k.end - k.start) + out.slice(k.end);
  return out;
}

function analyzeDoc(doc: Doc, options: OtpOptions): { occurrences: Occurrence[]; rejected: RejectedOtp[] } {
  const { tokens, rejected, masked } = collectTokens(doc, options);
  const words = findWords(doc, masked);
  const occurrences: Occurrence[] = [];
  for (const { token, blockIndex } of tokens) {
    const scored = scoreToken(doc, blockIndex, token, words);
    if (typeof scored === 'string') rejected.push({ raw: token.raw, reason: scored, source: doc.source });
    else occurrences.push(scored);
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
