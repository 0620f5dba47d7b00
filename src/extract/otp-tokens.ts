/**
 * Evidence for the code shapes that words and identifiers share: groups of
 * upper-case letters and digits joined by dashes (`AB2CD-EF3GH`), groups of
 * lower case and digits (`ab123-4567c`) or words (`maple-river-stone-lamp`)
 * joined by dashes, lower-case
 * letters with digits (`a3f9c2`, hex included) and long tokens of up to 64
 * characters (hex, base32 or mixed-case base62). Each needs the mail to name
 * it a code: named right before it, or set apart right after a paragraph that
 * names a code or token ("Enter this code:"); a long one named inline must
 * also be asked to be copied or pasted, or (longer than 16) close its line
 * ("Your reset token is: pQ7vK2xR…").
 */
import { CAPITAL_WORDS, CODE_WORDS, CODE_WORDS_CJK, COPY_WORDS, COPY_WORDS_ANYWHERE, PHONE_WORDS, PHONE_WORDS_CJK, TOKEN_WORDS, TOKEN_WORDS_ANYWHERE, compileWords } from './lexicon.ts';
import type { Doc } from './otp-document.ts';
import type { Token } from './otp-candidates.ts';

const NAMING = compileWords([...CODE_WORDS, ...TOKEN_WORDS], [...CODE_WORDS_CJK, ...TOKEN_WORDS_ANYWHERE]);
const NAMING_ONE = new RegExp(NAMING.source, 'iu');
const COPY = new RegExp(compileWords(COPY_WORDS, COPY_WORDS_ANYWHERE).source, 'iu');
const PHONE = new RegExp(compileWords(PHONE_WORDS, PHONE_WORDS_CJK).source, 'iu');
/**
 * A code or token word at the end of the text before a candidate, or with up
 * to three qualifiers and a colon, or with a few words and a verb: "Your
 * token: ", "kod resetowania hasła: ", "رمز التحقق: ", "Ihr Code zum
 * Zurücksetzen des Passworts lautet: ", "Votre jeton de réinitialisation est : ".
 */
const NAMED_BEFORE = new RegExp(
  `(?:${NAMING.source})(?:(?:\\s+(?:is|ist|est|es|è|é|jest|là|adalah|है))?[\\s:：\\-–—]*|(?:\\s+\\p{L}+){1,3}\\s*[:：]\\s*|(?:\\s+[\\p{L}'’]+){1,6}\\s+(?:is|ist|lautet|est|es|è|é|är|er|jest|wynosi|là|adalah)\\s*[:：]?\\s*)$`, 'iu',
);
/** The text of a line that a wrapped URL or token goes on from (`…?t=Qm9vayB0b`). */
const CONTINUED = /(?:(?:https?:\/\/|www\.)\S*|[=/&?%+_-])$/;
/** How far a code word may be for the shape to be worth reporting as ruled out. */
const REACH = 150;
/** A token longer than this that is named inline must also be asked to be copied. */
const SHORT = 16;

/** Where a candidate stands: alone in its block or line, and styled like a code. */
export interface Standing { alone: boolean; styled: boolean }

/** What `tokenEvidence` decides: ruled out (with why, or `null` when not worth reporting), or the evidence and the points it is worth. */
export type TokenVerdict = { ruledOut: string | null } | { evidence: string[]; points: number };

/** Points for being named or announced a code: a token word ("Enter this token:") counts as a code word does. */
const NAMED_POINTS = 4;
/** Points for a long token that closes the line naming it ("Your reset token is: pQ7vK2xR…"): the label and its value, as good as standing alone after it. */
const LABELLED_POINTS = 8;

/** The last clause of the block before: what a set-apart candidate is announced by ("Enter this code:"). */
function announcedBy(doc: Doc, blockIndex: number): string | null {
  const previous = doc.blocks[blockIndex - 1];
  if (!previous) return null;
  const tail = previous.text.slice(-100);
  const word = NAMING_ONE.exec(tail.slice(Math.max(0, tail.search(/[^.!?。]*$/u))))?.[0];
  if (!word || PHONE.test(tail)) return null;
  return word;
}

function describe(kind: Token['kind']): string {
  if (kind === 'dashed') return 'lower case letters and digits in dash-joined groups';
  if (kind === 'words') return 'words joined by dashes';
  return kind === 'grouped' ? 'dash-joined groups' : kind === 'lower' ? 'lower case letters and digits' : 'a long token';
}

/** Shapes that prose and identifiers share with codes, read as codes only when named right before or set apart near a code word. */
const GROUPED_KINDS: ReadonlySet<Token['kind']> = new Set(['grouped', 'dashed', 'words']);

/**
 * Whether a grouped, lower-case or long candidate is a code. `named` says
 * whether the text right before it names a code (the scoring's rule);
 * `otherwise` whether the message also writes it in another case.
 */
export function tokenEvidence(doc: Doc, blockIndex: number, token: Token, kwDistance: number, at: Standing, named: boolean, otherwise: boolean): TokenVerdict {
  const block = doc.blocks[blockIndex];
  if (!block) return { ruledOut: 'outside the text' };
  const what = describe(token.kind);
  if (token.kind === 'grouped' && token.raw.split(/[-–‑]/).some((g) => CAPITAL_WORDS.has(g))) return { ruledOut: null };
  if (otherwise) return GROUPED_KINDS.has(token.kind) ? { ruledOut: null } : { ruledOut: `${what}: the message also writes it in another case (a name, not a code)` };
  const previous = doc.blocks[blockIndex - 1];
  if (!GROUPED_KINDS.has(token.kind) && token.start === 0 && previous && CONTINUED.test(previous.text)) return { ruledOut: `${what}: continues the URL or token on the line before` };
  const before = block.text.slice(Math.max(0, token.start - 60), token.start);
  const namedHere = named || NAMED_BEFORE.test(before);
  const announced = at.alone ? announcedBy(doc, blockIndex) : null;
  if (kwDistance > REACH && !namedHere && !announced) return { ruledOut: null };
  if (GROUPED_KINDS.has(token.kind)) {
    const evidence = [namedHere && 'named a code right before it', (at.alone || at.styled) && kwDistance <= REACH && 'set apart like a code'].filter((e): e is string => typeof e === 'string');
    return evidence.length > 0 ? { evidence: [`${what}: ${evidence.join(', ')}`], points: 0 } : { ruledOut: `${what}, and only a nearby code word says code` };
  }
  if (announced) return { evidence: [`${what}: on a line of its own right after "${announced}"`], points: NAMED_POINTS };
  // "Your password reset token is: pQ7vK2xR…" closing its line: the label-and-value layout of a long code.
  const closes = /^[\s.!。]*$/u.test(block.text.slice(token.end));
  if (token.kind === 'long' && token.code.length > SHORT && NAMED_BEFORE.test(before) && closes) {
    return { evidence: [`${what}: named a code right before it, closing its line`], points: LABELLED_POINTS };
  }
  if (namedHere && token.code.length <= SHORT && at.alone) return { evidence: [`${what}: named a code right before it, set apart`], points: NAMED_POINTS };
  if (token.code.length > SHORT) {
    // "Copy and paste this verification code into the app: 3f2a…": asked to copy, with the code named in the same words.
    const asked = `${at.alone ? previous?.text.slice(-200) ?? '' : ''} ${block.text.slice(Math.max(0, token.start - 200), token.start)}`;
    const copy = COPY.exec(asked)?.[0];
    const word = NAMING_ONE.exec(asked)?.[0];
    if (copy && word) return { evidence: [`${what}: the mail asks to "${copy}" it, named "${word}"`], points: NAMED_POINTS };
  }
  return { ruledOut: `${what}: not on a line of its own right after a code or token is named${token.code.length > SHORT ? ', nor named a code and asked to be copied' : ''}` };
}
