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
/** Words of a help or support line: a number after them is a phone number, even after a code word ("Questions about your code? Our support team:"). */
const SUPPORT_ANY = compileWords([
  'help', 'support', 'contact(?: us)?', 'questions?', 'assistance', 'customer service', 'hilfe', 'kundenservice', 'kundendienst', 'fragen', 'aide', 'assistance', 'service client',
  'ayuda', 'soporte', 'atención al cliente', 'dudas', 'ajuda', 'suporte', 'atendimento', 'assistenza', 'aiuto', 'hulp', 'klantenservice', 'pomoc', 'obsługa klienta', 'pytania',
  'hjälp', 'kundtjänst', 'frågor', 'поддержк\\p{L}*', 'помощ\\p{L}*', 'вопрос\\p{L}*', 'destek', 'yardım', 'müşteri hizmetleri',
], ['サポート', 'ヘルプ', '帮助', '支持', '고객지원', '문의']);
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

/**
 * Groups of three or four digits, all of one length, one separator between
 * them (`482-913-067`, `4829 1306`, `#482913`): a code's layout, unlike
 * `(415) 555-0134`, `2024-03-15` or the pairs of `01 84 88 20 20`.
 */
function codeLayout(text: string): boolean {
  const t = text.trim().replace(/^#/, '');
  if (/^\d+$/.test(t)) return true;
  const m = /^\d+([ \-–‑·.])\d+(?:\1\d+)*$/.exec(t);
  if (!m) return false;
  const lengths = t.split(m[1] ?? ' ').map((g) => g.length);
  return lengths.every((n) => n === lengths[0] && n >= 3 && n <= 4);
}

/**
 * Whether the paragraph before block `blockIndex` (which holds only `number`)
 * announces it as a code: it names a code, names no phone, no help or support
 * and no other kind of number (order, reference …), does not ask a question
 * about the code ("Didn't get your code?"), holds no number itself, and
 * `number` is laid out as a code is. `null` when the paragraph names no code.
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
  const support = new RegExp(SUPPORT_ANY.source, 'iu').exec(before);
  if (support) return { declined: `${named} but is about help or support ("${support[0]}")` };
  const sentence = before.slice(words[words.length - 1]?.index ?? 0);
  if (/^[^.!。！]*[?？]/u.test(sentence) || /[¿]/u.test(before)) return { declined: `${named} but asks a question about it rather than announcing it` };
  const label = new RegExp(LABEL_ANY.source, 'iu').exec(before);
  if (label) return { declined: `${named} but also another kind of number ("${label[0]}")` };
  if (/\d(?:[\s.-]?\d){3}/.test(before)) return { declined: `${named} but already holds a number` };
  if (!codeLayout(number)) return { declined: `${named} but ${number.trim()} is not laid out as a code (groups of three or four digits, all of one length)` };
  return { word };
}
