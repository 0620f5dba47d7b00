/**
 * Numbers that cannot be one-time codes, recognised from the text alone:
 * URLs, email addresses, masked card and account numbers, colours, dates,
 * times, prices, percentages, phone numbers, postal codes, decimals and
 * copyright years.
 */

/**
 * A stretch of a block's text that is not a code, and why. A mask that
 * `yields` (a phone number, a date, a `#` reference) steps aside when the
 * text names a code right before it or the caller asked for that length or
 * pattern: a grouped code such as `482-913-067` has a phone number's shape.
 */
export interface Mask { start: number; end: number; reason: string; yields: boolean }

const YIELDING = /^(?:a phone number|a date|a number marked with "#")/;
/** How many digits `s` contains. */
export const digitCount = (s: string): number => s.replace(/\D/g, '').length;
const MONEY_NUMBER = "(?:\\d{1,3}(?:[.,'\u00a0\u202f ]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?)";
const CURRENCY_BEFORE = '(?:[$€£¥₹₽₩]|US\\$|R\\$|CHF|EUR|USD|GBP|SEK|NOK|DKK|PLN|JPY|CNY|RUB)';
const CURRENCY_AFTER = '(?:€|EUR|USD|\\$|£|zł|PLN|kr\\.?|SEK|NOK|DKK|руб\\.?|₽|円|元|CHF|yen|Kč)';

/** What a rule's match cannot do without: a digit, or a character. */
const DIGIT = Symbol('a digit');

/**
 * The rules, in order. `needs` is what every match of the rule contains (a digit, or one
 * character): a block's text without it skips the rule, so text with no digits costs little.
 */
const MASK_RULES: ReadonlyArray<{ needs?: typeof DIGIT | string; re: RegExp; reason: (m: string) => string | null }> = [
  { re: /\b(?:https?:\/\/|www\.)[^\s<>"]+/giu, reason: () => 'part of a URL' },
  { needs: '@', re: /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu, reason: () => 'part of an email address' },
  { needs: '/', re: /(?<![a-z0-9.-])(?:[a-z0-9-]+\.)+[a-z]{2,}\/[^\s<>"]*/gu, reason: () => 'part of a URL' },
  // 6219*8610427, 4111 **** 1111, ****1234, XX1234, •••• 4242: what a card or account shows of itself.
  { needs: DIGIT, re: /(?<![\p{L}\p{N}])(?:\d{2,6}[\s-]?(?:[*•●]{1,12}|[xX]{4,12})[\s-]?\d{3,12}|(?:[*•●]{2,}|[*•●](?=\d)|[xX]{2,})[\s-]?\d{3,8})(?![\p{L}\p{N}])/gu, reason: () => 'part of a masked card or account number' },
  { needs: '#', re: /(?:^|(?<=[^\w&]))#[0-9A-Fa-f]{3,8}\b/gu, reason: (m) => (/[A-Fa-f]/.test(m) || [4, 7, 9].includes(m.length) ? 'a colour' : `a number marked with "#" (a reference, not a code)`) },
  { needs: '#', re: /#\d{2,}\b/gu, reason: () => 'a number marked with "#" (a reference, not a code)' },
  { needs: '(', re: /\b(?:rgba?|hsla?)\s*\([^)]*\)/giu, reason: () => 'a colour' },
  { needs: DIGIT, re: /\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b/gu, reason: () => 'a date' },
  { needs: DIGIT, re: /\b\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b/gu, reason: () => 'a date' },
  { needs: DIGIT, re: /\d{4}\s?年\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?日)?|\d{1,2}\s?月\s?\d{1,2}\s?日/gu, reason: () => 'a date' },
  { needs: DIGIT, re: /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?(?:\s?(?:UTC|GMT|[A-Z]{2,4}T))?/gu, reason: () => 'a time' },
  { needs: DIGIT, re: /\b\d{1,2}\s?[AaPp]\.?[Mm]\.?(?![\p{L}\p{N}])|\b\d{1,2}h\d{2}\b|\b\d{1,2}[.:]\d{2}\s?Uhr\b/gu, reason: () => 'a time' },
  // Not inside a run of letters and digits: `hT4w9kr` is a code, not 9 kronor.
  { needs: DIGIT, re: new RegExp(`(?:(?<![\\p{L}\\p{N}])(?=[A-Z])|(?![A-Z]))${CURRENCY_BEFORE}\\s?${MONEY_NUMBER}`, 'gu'), reason: () => 'a price' },
  { needs: DIGIT, re: new RegExp(`(?<![\\d.,'\\p{L}])${MONEY_NUMBER}\\s?${CURRENCY_AFTER}(?![\\p{L}])`, 'gu'), reason: () => 'a price' },
  { needs: DIGIT, re: /\b\d+(?:[.,]\d+)?\s?%/gu, reason: () => 'a percentage' },
  { needs: DIGIT, re: /(?:\+|\b00)[1-9]\d{0,2}(?:[\s.\-/]?\(?\d{1,5}\)?){2,6}/gu, reason: (m) => (digitCount(m) >= 8 ? 'a phone number' : null) },
  { needs: DIGIT, re: /\(\d{2,5}\)\s?\d{2,5}(?:[\s.-]\d{2,5}){0,3}/gu, reason: (m) => (digitCount(m) >= 7 ? 'a phone number' : null) },
  { needs: DIGIT, re: /\b1[\s.-]\d{3}[\s.-]\d{3}[\s.-]\d{4}\b|\b\d{3}[.-]\d{3}[.-]\d{4}\b|\b\d{3} \d{3} \d{4}\b|\b\d{3}-\d{4}\b/gu, reason: () => 'a phone number' },
  { needs: DIGIT, re: /\b[78][\s-]?\(?\d{3}\)?[\s-]?\d{3}[\s-]?\d{2}[\s-]?\d{2}\b/gu, reason: () => 'a phone number' },
  { needs: DIGIT, re: /\b\d{1,4}(?:[\s.-]\d{2,4}){2,5}\b/gu, reason: (m) => (digitCount(m) >= 9 ? 'a phone number' : null) },
  { needs: DIGIT, re: /\b\d+(?:\/\d+)+\b/gu, reason: () => 'a date or a number with slashes' },
  { needs: DIGIT, re: /\b(?:0800|0808|0900|1300|1800|1-800|800|888|877|866)[\s-]?\d{3}[\s-]?\d{3,4}\b/gu, reason: () => 'a phone number' },
  { needs: DIGIT, re: /\b0\d{1,4}(?:[\s/-]\d{2,8}){1,4}\b/gu, reason: (m) => (digitCount(m) >= 9 ? 'a phone number' : null) },
  { needs: DIGIT, re: /,\s?[A-Z]{2}\s\d{5}(?:-\d{4})?\b/gu, reason: () => 'a US ZIP code' },
  { needs: DIGIT, re: /\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b/gu, reason: () => 'a UK postcode' },
  { needs: DIGIT, re: /\b[AC-FHKNPRTV-Y]\d{2} [AC-FHKNPRTV-Y\d]{4}\b/gu, reason: (m) => (/[A-Z]/.test(m.slice(3)) ? 'an Irish Eircode' : null) },
  { needs: DIGIT, re: /\b\d+(?:[.,]\d+)+\b/gu, reason: () => 'a decimal number, version or IP address' },
  { needs: '©', re: /©\s?\d{4}(?:\s?[-–]\s?\d{4})?/gu, reason: () => 'a copyright year' },
];

/** The masked stretches of a block's text, in order; the first rule to claim a character wins. */
const ALNUM = /[\p{L}\p{N}]/u;
/** Whether the characters at `outside` and `inside` are both letters or digits (a mask edge inside a word). */
const gluedAt = (text: string, outside: number, inside: number): boolean => ALNUM.test(text[outside] ?? '') && ALNUM.test(text[inside] ?? '');

export function masksOf(text: string): Mask[] {
  const masks: Mask[] = [];
  const covered = new Uint8Array(text.length);
  const digits = /\d/.test(text);
  for (const rule of MASK_RULES) {
    if (rule.needs === DIGIT ? !digits : rule.needs !== undefined && !text.includes(rule.needs)) continue;
    rule.re.lastIndex = 0;
    for (const m of text.matchAll(rule.re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (covered.subarray(start, end).includes(1)) continue;
      // A stretch that starts or ends inside a run of letters and digits (`0kr` of `0kr0AAAAA`,
      // `0Am` of `0Am0AAA`) is a piece of a longer word, not a price or a time of its own.
      if (gluedAt(text, start - 1, start) || gluedAt(text, end, end - 1)) continue;
      const reason = rule.reason(m[0]);
      if (!reason) continue;
      masks.push({ start, end, reason, yields: YIELDING.test(reason) });
      covered.fill(1, start, end);
    }
  }
  return masks.sort((a, b) => a.start - b.start);
}
