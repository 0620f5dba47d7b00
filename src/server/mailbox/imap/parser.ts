/**
 * Reading IMAP commands (RFC 3501 §9): a command arrives as line segments and
 * the literals between them; {@link tokenize} turns them into atoms, strings
 * and lists. An atom keeps its `[section]` and `<partial>` whole, spaces and
 * parentheses included, as FETCH needs (`BODY.PEEK[HEADER.FIELDS (From To)]<0.512>`).
 *
 * @packageDocumentation
 */

/** A token of a command: an atom, a string (quoted or literal), or a parenthesized list. */
export type Token = { atom: string } | { string: string } | Token[];

/** A command the client sent wrong; the session answers BAD with its message. */
export class CommandSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandSyntaxError';
  }
}

/** The text of a token that is an atom or a string, or null for a list. */
export function textOf(token: Token | undefined): string | null {
  if (token === undefined || Array.isArray(token)) return null;
  return 'atom' in token ? token.atom : token.string;
}

/** Reads the atoms, strings and lists of one segment into `stack`'s top list. */
function tokenizeSegment(text: string, stack: Token[][]): void {
  let i = 0;
  const top = () => stack[stack.length - 1]!;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ') {
      i++;
    } else if (c === '(') {
      const list: Token[] = [];
      top().push(list);
      stack.push(list);
      i++;
    } else if (c === ')') {
      if (stack.length === 1) throw new CommandSyntaxError('a ")" closes no list');
      stack.pop();
      i++;
    } else if (c === '"') {
      let value = '';
      i++;
      for (; i < text.length && text[i] !== '"'; i++) value += text[i] === '\\' ? (text[++i] ?? '') : text[i];
      if (i >= text.length) throw new CommandSyntaxError('a quoted string is not closed');
      top().push({ string: value });
      i++;
    } else {
      let value = '';
      let bracket = 0;
      for (; i < text.length; i++) {
        const d = text[i]!;
        if (bracket === 0 && (d === ' ' || d === '(' || d === ')')) break;
        if (d === '[') bracket++;
        if (d === ']') bracket--;
        value += d;
      }
      top().push({ atom: value });
    }
  }
}

/**
 * The tokens of a command: its text segments with the literals that follow
 * each (all but the last segment end with a literal).
 *
 * @throws CommandSyntaxError for an unclosed string or list, or an unbalanced ")".
 */
export function tokenize(segments: readonly string[], literals: readonly Buffer[]): Token[] {
  const root: Token[] = [];
  const stack: Token[][] = [root];
  segments.forEach((segment, i) => {
    tokenizeSegment(segment, stack);
    const literal = literals[i];
    if (literal !== undefined) stack[stack.length - 1]!.push({ string: literal.toString('utf8') });
  });
  if (stack.length !== 1) throw new CommandSyntaxError('a "(" is not closed');
  return root;
}

/** A literal announced at the end of a line: its size and whether it is non-synchronizing (`{n+}`). */
export function literalAtEnd(line: string): { size: number; plus: boolean } | null {
  const match = /\{(\d{1,10})(\+?)\}$/.exec(line);
  return match ? { size: Number(match[1]), plus: match[2] === '+' } : null;
}

/**
 * Whether `n` (1-based, seq or UID) is in a sequence set such as `1:4,7,9:*`;
 * `max` is what `*` means.
 *
 * @throws CommandSyntaxError for a set that is not one.
 */
export function sequenceSet(set: string, max: number): (n: number) => boolean {
  const ranges: Array<[number, number]> = [];
  for (const item of set.split(',')) {
    const match = /^(\d+|\*)(?::(\d+|\*))?$/.exec(item);
    if (!match) throw new CommandSyntaxError(`"${set}" is not a sequence set (give numbers and ranges like 1:4,7,9:*)`);
    const a = match[1] === '*' ? max : Number(match[1]);
    const b = match[2] === undefined ? a : match[2] === '*' ? max : Number(match[2]);
    ranges.push([Math.min(a, b), Math.max(a, b)]);
  }
  return (n) => ranges.some(([lo, hi]) => n >= lo && n <= hi);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * The UTC start of an IMAP date (`1-Feb-2026`), in epoch milliseconds.
 *
 * @throws CommandSyntaxError for a date that is not one.
 */
export function imapDate(text: string): number {
  const match = /^(\d{1,2})-([A-Za-z]{3})-(\d{4})$/.exec(text);
  const month = match ? MONTHS.indexOf(match[2]!.toLowerCase()) : -1;
  if (!match || month === -1) throw new CommandSyntaxError(`"${text}" is not an IMAP date (give one like 7-Dec-2026)`);
  return Date.UTC(Number(match[3]), month, Number(match[1]));
}

/** A time as INTERNALDATE writes it: `07-Dec-2026 01:02:03 +0000`. */
export function internalDate(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  const month = MONTHS[d.getUTCMonth()]!;
  return `${pad(d.getUTCDate())}-${month[0]!.toUpperCase()}${month.slice(1)}-${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}
