/**
 * Names with a number (`Python3`, `iPhone15`, `Log4Shell`) told from random
 * mixed-case codes (`hT4wq9`) by their shape and by how their letters read.
 * About one random 6-character code in 300 (one in 1,500 of 8 characters)
 * reads as a name.
 */

/**
 * Letters written the way names are: a capitalised word (`Python`, `Pixel`),
 * two of them (`PayPal`, `LogShell`), `i`, `e` or `x` before one (`iPhone`,
 * `eBay`, `xCode`), or an operating system (`macOS`, `iPadOS`).
 */
const NAME_LETTERS = /^(?:[A-Z][a-z]{3,}|(?:[A-Z][a-z]{2,}){2}|[iex][A-Z][a-z]{2,}|(?:[a-z]{2,5}|i(?:[A-Z][a-z]{2})?)OS)$/;
/** Two consonants that follow each other in words of the languages names are made from. */
const CONSONANT_PAIRS = new Set('bl br ch ck cl cr ct dg dr ff fl fr ft gh gl gn gr hr kn ld lf lk ll lm lp ls lt mb mm mn mp nc nd ng nk nn ns nt ph pl pp pr ps pt rb rc rd rf rg rk rl rm rn rp rr rs rt sc sh sk sl sm sn sp ss st sw th tl tr ts tt tw wh wn wr ws xc xt'.split(' '));

/** Whether a stretch of lower case reads as part of a word: at least one letter in four a vowel, and only consonant pairs words have. */
function pronounceable(lower: string): boolean {
  if ((lower.match(/[aeiouy]/g) ?? []).length / lower.length < 1 / 4) return false;
  for (let i = 0; i + 1 < lower.length; i++) {
    const pair = lower.slice(i, i + 2);
    if (/^[^aeiouy]{2}$/.test(pair) && !CONSONANT_PAIRS.has(pair)) return false;
    if (pair[0] === 'q' && pair[1] !== 'u') return false;
  }
  return true;
}

function nameLetters(letters: string): boolean {
  return NAME_LETTERS.test(letters) && (letters.match(/[a-z]{2,}/g) ?? []).every(pronounceable);
}

/**
 * Whether a mixed-case token reads as a name with a number: a name with a
 * short number after it or one digit before it (`Python3`, `iPhone15`,
 * `Office365`, `1Password`), or two capitalised words joined by one digit
 * (`Log4Shell`, `W3Schools`).
 */
export function nameWithNumber(code: string): boolean {
  const letters = /^([A-Za-z]{3,})\d{1,4}$/.exec(code)?.[1] ?? /^\d([A-Za-z]{3,})$/.exec(code)?.[1];
  if (letters !== undefined) return nameLetters(letters);
  return /^(?:[A-Z]|[A-Z][a-z]{2,})\d[A-Z][a-z]{2,}$/.test(code) && (code.match(/[a-z]{2,}/g) ?? []).every(pronounceable);
}
