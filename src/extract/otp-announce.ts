/**
 * "Announced, then set apart": a code named in the paragraph before a block
 * that holds nothing but a number ("Your verification code is listed below.
 * Please enter it in your browser." and then `482-913-067` on its own). Such
 * an announcement lets a number through the phone, date and `#` reference
 * masks, as a code word right before it does, unless the paragraph says
 * something else about the number or its shape is not a code's.
 */
import { CODE_WORDS, CODE_WORDS_CJK, LABEL_WORDS, LABEL_WORDS_CJK, PHONE_WORDS, PHONE_WORDS_CJK, compileWords } from './lexicon.ts';
import type { Doc } from './otp-document.ts';

const CODE_ANY = compileWords(CODE_WORDS, CODE_WORDS_CJK);
const PHONE_ANY = compileWords(PHONE_WORDS, PHONE_WORDS_CJK);
const LABEL_ANY = compileWords(LABEL_WORDS, LABEL_WORDS_CJK);
/** How much of the paragraph before is read (its end), in characters and in lines of a text body. */
const REACH = 300;
const MAX_LINES = 4;

/** What the paragraph before a set-apart number says: the code word that announces it, or why it does not count. */
export type Announcement = { word: string } | { declined: string };

/**
 * The paragraph just before block `blockIndex`: the previous block of an HTML
 * body, or the lines of the previous paragraph of a text body (up to the line
 * before, at most four lines), its last 300 characters.
 */
export function paragraphBefore(doc: Doc, blockIndex: number): string | null {
  const previous = doc.blocks[blockIndex - 1];
  if (!previous) return null;
  const lines = [previous.text];
  if (previous.paragraph !== undefined) {
    for (let j = blockIndex - 2; j >= 0 && lines.length < MAX_LINES; j--) {
      const b = doc.blocks[j];
      if (!b || b.paragraph !== previous.paragraph) break;
      lines.unshift(b.text);
    }
  }
  const text = lines.join(' ');
  return text.length > REACH ? text.slice(-REACH) : text;
}

/** Groups of one length, one separator between them (`482-913-067`, `4829 1306`, `#482913`): a code's layout, unlike `(415) 555-0134` or `2024-03-15`. */
function codeLayout(text: string): boolean {
  const t = text.trim().replace(/^#/, '');
  if (/^\d+$/.test(t)) return true;
  const m = /^\d+([ \-–‑·.])\d+(?:\1\d+)*$/.exec(t);
  if (!m) return false;
  const lengths = t.split(m[1] ?? ' ').map((g) => g.length);
  return lengths.every((n) => n === lengths[0]);
}

/** Three pairs of digits that could be a day, a month and a year (`15-03-24`). */
function calendarDate(text: string): boolean {
  const groups = text.trim().split(/[ \-–‑·./]/).map(Number);
  if (groups.length !== 3 || text.trim().replace(/\D/g, '').length !== 6) return false;
  const [a = 0, b = 0] = groups;
  return (a >= 1 && a <= 31 && b >= 1 && b <= 12) || (a >= 1 && a <= 12 && b >= 1 && b <= 31);
}

/**
 * Whether the paragraph before block `blockIndex` (which holds only `number`)
 * announces it as a code: it names a code, names no phone and no other kind of
 * number (order, reference …), holds no number itself, and `number` is laid
 * out as a code is. `null` when the paragraph names no code at all.
 */
export function announcement(doc: Doc, blockIndex: number, number: string): Announcement | null {
  const before = paragraphBefore(doc, blockIndex);
  if (!before) return null;
  const words = [...before.matchAll(CODE_ANY)];
  const word = words[words.length - 1]?.[0];
  if (!word) return null;
  const named = `the paragraph before names a code ("${word}")`;
  const phone = new RegExp(PHONE_ANY.source, 'iu').exec(before);
  if (phone) return { declined: `${named} but also a phone ("${phone[0]}")` };
  const label = new RegExp(LABEL_ANY.source, 'iu').exec(before);
  if (label) return { declined: `${named} but also another kind of number ("${label[0]}")` };
  if (/\d(?:[\s.-]?\d){3}/.test(before)) return { declined: `${named} but already holds a number` };
  if (!codeLayout(number)) return { declined: `${named} but ${number.trim()} is not laid out as a code (groups of one length)` };
  if (calendarDate(number)) return { declined: `${named} but ${number.trim()} reads as a calendar date` };
  return { word };
}
