/**
 * What the words around a number say it is, when that is not a one-time
 * code: a label before it ("Order no.", "Bestellnummer"), a label after it
 * ("… is your order number"), a phone word, the label ending the paragraph
 * above a number set apart, or an offer in its sentence.
 */
import { CODE_WORDS, CODE_WORDS_CJK, LABEL_WORDS, LABEL_WORDS_CJK, PHONE_WORDS, PHONE_WORDS_CJK, PROMO_WORDS, PROMO_WORDS_CJK, compileWords } from './lexicon.ts';
import { paragraphBefore } from './otp-announce.ts';
import type { Doc } from './otp-document.ts';

/** What may stand between a label and its number: punctuation, "no.", and a verb ("is", "lautet"). */
export const GAP = "[\\s:：#№().\\-–—=]*(?:(?:n[°º]|no\\.?|nr\\.?)[\\s:：#№().\\-–—=]*)?(?:(is|was|ist|lautet|est|es|è|é|är|er|jest|wynosi|は|为|為)[\\s:：#№().\\-–—]*)?";
const wordsAlt = (words: readonly string[], cjk: readonly string[]): string =>
  `(?:(?<![\\p{L}\\p{N}])(?:${[...words].sort((a, b) => b.length - a.length).join('|')})|${[...cjk].sort((a, b) => b.length - a.length).join('|')})`;
export const LABEL_BEFORE = new RegExp(`${wordsAlt(LABEL_WORDS, LABEL_WORDS_CJK)}${GAP}$`, 'iu');
export const PHONE_BEFORE = new RegExp(`${wordsAlt(PHONE_WORDS, PHONE_WORDS_CJK)}(?:\\s+(?:us|at|on|oss|på))*${GAP}$`, 'iu');
export const LABEL_AFTER = new RegExp(`^\\s*(?:is|was|ist|est|es|è|är|is je)\\s+(?:your|the|ihre?|deine?|votre|ton|tu|su|il tuo|la tua|seu|sua|uw|je|twój|din|ditt|ваш)?\\s*${wordsAlt(LABEL_WORDS, LABEL_WORDS_CJK)}(?![\\p{L}])`, 'iu');
const PROMO_ONE = new RegExp(compileWords(PROMO_WORDS, PROMO_WORDS_CJK).source, 'iu');
export const CODE_WORD_IN_CLAUSE = new RegExp(`(?:${compileWords(CODE_WORDS, CODE_WORDS_CJK).source})[^.!?。\\n]*$`, 'iu');

/** The offer word of the sentence around a number (`before` and `after` are the 60 characters either side), or `null`. */
export function offerAround(before: string, after: string): string | null {
  const sentence = `${before.split(/[.!?。！？](?:\s|$)/u).pop() ?? ''} ${after.split(/[.!?。！？](?:\s|$)/u)[0] ?? ''}`;
  return PROMO_ONE.exec(sentence)?.[0] ?? null;
}

/** The label ending the paragraph before a number set apart ("Your order no."), unless a code word earlier in its clause claims it ("Your code for order 123 is:"). */
export function labelAbove(doc: Doc, blockIndex: number): string | null {
  const before = paragraphBefore(doc, blockIndex);
  if (before === null) return null;
  const tail = before.slice(-80);
  const label = LABEL_BEFORE.exec(tail);
  if (!label) return null;
  if (CODE_WORD_IN_CLAUSE.test(tail.slice(0, label.index))) return null;
  return label[0].trim().replace(/[\s:：#№().\-–—=]+$/u, '');
}
