/**
 * {@link readerText}: an email's text as its reader sees it, for the `.txt`
 * attachment of the report (which Playwright also prints under a failure).
 *
 * Marketing and transactional emails often open with a preheader: a line of
 * preview text followed by a long run of invisible filler (zero-width
 * non-joiners, `&zwnj;`, the combining grapheme joiner `&#847;`, zero-width
 * spaces, soft hyphens, between non-breaking spaces), so that a mail client's
 * preview shows the preheader and not the body's first words. A client draws
 * none of it; in a text body, though, it is a screen of blanks before the
 * first word. This drops it, as the client does, and leaves all other text as
 * it was (`message.text` itself is never changed).
 *
 * @packageDocumentation
 */

/** Characters no reader sees wherever they stand: soft hyphen, combining grapheme joiner, Mongolian vowel separator, zero-width space, word joiner, invisible operators, byte-order mark. */
// U+034F, a combining mark, stands outside the class, where it cannot combine with a neighbour.
const ALWAYS_INVISIBLE = /[\u00AD\u180E\u200B\u2060-\u2064\uFEFF]|\u034F/g;

/**
 * One filler token: an invisible character (the joiners ZWNJ and ZWJ too), or
 * one written as an HTML entity, as a text part made from the HTML by a naive
 * converter still has it.
 */
const TOKEN = String.raw`(?:[\u00AD\u180E\u200B-\u200D\u2060-\u2064\uFEFF]|\u034F|&(?:zwnj|zwj|shy|nbsp|#(?:847|173|160|820[3-5]|8288|65279)|#x(?:34f|ad|a0|200[b-d]|2060|feff));)`;

/** Spaces that may sit between filler tokens: ordinary and non-breaking spaces, and the fixed-width ones (en, em, figure, thin …). */
const GAP = String.raw`[ \t\u00A0\u2000-\u200A\u202F]`;

/**
 * A run of filler: two tokens or more with only spaces between them. A lone
 * ZWNJ or ZWJ inside a word (Persian, Hindi, an emoji sequence) is writing,
 * not filler, and stays.
 */
const FILLER_RUN = new RegExp(`${GAP}*${TOKEN}(?:${GAP}*${TOKEN})+${GAP}*`, 'gi');

/**
 * The text with invisible preheader filler removed: each run of it becomes one
 * space (none at a line's start or end), a line that held only filler goes,
 * and so do the blank lines it leaves at the start.
 *
 * @example
 * ```ts
 * readerText('Your code is inside\u00a0\u200c\u00a0\u200c\u00a0\u200c\n\nHello Ada,'); // 'Your code is inside\n\nHello Ada,'
 * ```
 */
export function readerText(text: string): string {
  let changed = false;
  const lines = text.split('\n').flatMap((line) => {
    const body = line.endsWith('\r') ? line.slice(0, -1) : line;
    const cleaned = body
      .replace(FILLER_RUN, (run: string, at: number) => (at === 0 || at + run.length === body.length ? '' : ' '))
      .replace(ALWAYS_INVISIBLE, '');
    if (cleaned === body) return [line];
    changed = true;
    // A line that was nothing but filler goes; one that kept words keeps its line ending.
    if (cleaned.trim() === '' && body.trim() !== '') return [];
    return [line.endsWith('\r') ? `${cleaned}\r` : cleaned];
  });
  if (!changed) return text;
  while (lines.length > 1 && lines[0]!.trim() === '') lines.shift();
  return lines.join('\n');
}
