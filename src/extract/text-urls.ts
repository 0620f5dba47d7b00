import { EXTRACTION_BOUNDS } from './dom.ts';

/** A URL found in a plain-text body, with the words that label it. */
export interface TextUrl {
  url: string;
  label: string;
  context: string;
  index: number;
}

const ANGLE = /<[ \t]*((?:https?|mailto):[^<>]{0,16384}?)\s*>/gi;
const MARKDOWN = /\[([^\]\n]{1,200})\]\(\s*((?:https?|mailto):[^\s)]+)\s*\)/gi;
const BRACKETED = /\[\s*((?:https?|mailto):[^\s[\]]+)\s*\]/gi;
// Square brackets end a bare URL: text made from HTML writes links as "text [url]", and
// unencoded brackets in real URLs are rare (they are reserved characters).
// Full-width punctuation ends one too, and so does text of a script written without spaces right after a
// letter or digit of the URL (see SPACELESS_URL); the regex itself stops there, so no text is read twice.
const FULL_WIDTH = '\\u3000-\\u303f\\uff01-\\uff0f\\uff1a-\\uff20\\uff3b-\\uff40\\uff5b-\\uff65';
const SPACELESS_URL = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\p{sc=Thai}\\p{sc=Lao}\\p{sc=Khmer}\\p{sc=Myanmar}';
const BARE = new RegExp(`\\b(?:https?:\\/\\/|mailto:)(?:[^\\s<>"'\`\\u00a0[\\]${FULL_WIDTH}${SPACELESS_URL}]|(?<=[/=%?&#._~\\-${SPACELESS_URL}])[${SPACELESS_URL}])+`, 'giu');
const URL_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

const CLOSERS: Readonly<Record<string, string>> = { ')': '(', ']': '[', '}': '{' };

/** Trailing punctuation that ends a sentence rather than the URL (brackets counted once, not per character). */
function trimTrailing(url: string): string {
  const balance: Record<string, number> = { ')': 0, ']': 0, '}': 0 };
  for (const c of url) {
    if (c in balance) balance[c] = (balance[c] ?? 0) + 1;
    else if (c === '(') balance[')'] = (balance[')'] ?? 0) - 1;
    else if (c === '[') balance[']'] = (balance[']'] ?? 0) - 1;
    else if (c === '{') balance['}'] = (balance['}'] ?? 0) - 1;
  }
  let end = url.length;
  while (end > 0) {
    const last = url[end - 1] as string;
    if ('.,;:!?\'"»”’'.includes(last)) { end--; continue; }
    if (CLOSERS[last] !== undefined && (balance[last] ?? 0) > 0) { balance[last] = (balance[last] ?? 0) - 1; end--; continue; }
    break;
  }
  return url.slice(0, end);
}

/**
 * Joins a URL that a sender hard-wrapped at 70–80 columns onto the next line.
 * Only done when it is unambiguous: the URL ends the line, the line is as long
 * as a wrapped line would be, and the next line starts (no indent) with a run
 * of URL characters that contains URL syntax (`/ ? = & % #`) — an ordinary
 * word such as "Thanks," never qualifies.
 */
function joinWrapped(text: string, start: number, url: string): { url: string; end: number } {
  let end = start + url.length;
  let joined = url;
  for (let guard = 0; guard < 10; guard++) {
    if (text[end] !== '\n' && text.slice(end, end + 2) !== '\r\n') break;
    const lineLength = end - (text.slice(Math.max(0, end - 81), end).lastIndexOf('\n') + Math.max(0, end - 81) + 1);
    if (lineLength < 70 || lineLength > 80) break;
    const nextStart = end + (text[end] === '\r' ? 2 : 1);
    const m = /^[^\s<>"]+/.exec(text.slice(nextStart, nextStart + EXTRACTION_BOUNDS.url));
    if (!m) break;
    const piece = trimTrailing(m[0]);
    if (!URL_CHARS.test(piece) || !/[/?=&%#]/.test(piece) || /^https?:/i.test(piece)) break;
    joined += piece;
    end = nextStart + piece.length;
    if (piece.length !== m[0].length) break;
  }
  return { url: joined, end };
}

/** The line around a match and the non-blank line before it, looking at most 400 characters either way. */
function lineAround(text: string, index: number, end: number): { before: string; line: string; previous: string; adjacent: boolean } {
  const from = Math.max(0, index - 400);
  // Searched within 400 characters either way: a body written on one long line costs no more per URL.
  const lineStart = text.slice(from, index).lastIndexOf('\n') + 1 + from || from;
  const start = Math.max(lineStart, from);
  let lineEnd = text.slice(end, end + 401).indexOf('\n');
  lineEnd = lineEnd === -1 ? Math.min(text.length, end + 400) : end + lineEnd;
  let previous = '';
  let adjacent = false;
  if (lineStart > 0 && lineStart > from) {
    const lines = text.slice(Math.max(0, lineStart - 400), lineStart - 1).split('\n');
    for (let i = lines.length - 1; i >= Math.max(0, lines.length - 2) && previous === ''; i--) {
      previous = (lines[i] ?? '').trim();
      adjacent = previous !== '' && i === lines.length - 1;
    }
  }
  return { before: text.slice(start, index), line: text.slice(start, lineEnd), previous, adjacent };
}

/** The last clause of a line: after the last sentence end or "·" / "|" separator. */
function lastClause(line: string): string {
  const withoutUrls = line.replace(/[[<(]?\b(?:https?:\/\/|mailto:)\S*/gi, ' ');
  const cleaned = withoutUrls.replace(/[\s:>\-–—([<]+$/u, '').replace(/^[\s*•>-]+/, '').trim();
  const parts = cleaned.split(/(?<=[.!?])\s+|\s+[·|•]\s+/);
  return (parts.at(-1) ?? '').replace(/^[\s·|•\])>]+/, '').trim();
}

/**
 * The words that label a URL in plain text: what precedes it on its line
 * ("Reset your password: https://…"), or, for a URL that starts its line, the
 * line right above it ("Join board" / "[https://…]", as text made from HTML
 * writes links) or a line above ending with a colon.
 */
function labelFrom(before: string, previous: string, adjacent: boolean): string {
  const own = lastClause(before);
  if (own !== '') return own;
  if (previous !== '' && (adjacent || /[:：]\s*$/.test(previous))) return lastClause(previous);
  return '';
}

/**
 * Finds URLs in a plain-text body: `<https://…>` (whitespace inside the angle
 * brackets is removed, as RFC 3986 appendix C recommends), `[https://…]`,
 * Markdown `[text](https://…)`, and bare http(s) URLs, trailing punctuation
 * excluded and ended where a reader ends them (full-width punctuation, text of
 * a script written without spaces). At most `max` URLs are returned, in order; `more` counts the rest.
 */
export function findTextUrls(text: string, max: number = EXTRACTION_BOUNDS.links): { urls: TextUrl[]; more: number } {
  const found: TextUrl[] = [];
  const taken = new Uint8Array(text.length);
  const add = (url: string, label: string, index: number, end: number): void => {
    if (taken.subarray(index, end).includes(1)) return;
    taken.fill(1, index, end);
    const around = lineAround(text, index, end);
    const line = around.line.replace(/\s+/g, ' ').trim();
    const words = line.replace(/\S*(?:https?:\/\/|mailto:)\S*/gi, '').trim();
    const context = words.length < 20 && around.previous ? `${around.previous} ${line}` : line;
    found.push({ url, label: label || labelFrom(around.before, around.previous, around.adjacent), context, index });
  };
  for (const m of text.matchAll(MARKDOWN)) {
    add((m[2] ?? '').trim(), (m[1] ?? '').trim(), m.index, m.index + m[0].length);
  }
  for (const m of text.matchAll(BRACKETED)) {
    add((m[1] ?? '').trim(), '', m.index, m.index + m[0].length);
  }
  for (const m of text.matchAll(ANGLE)) {
    add((m[1] ?? '').replace(/\s+/g, ''), '', m.index, m.index + m[0].length);
  }
  for (const m of text.matchAll(BARE)) {
    const trimmed = trimTrailing(m[0]);
    if (trimmed.length < 9) continue;
    const { url, end } = joinWrapped(text, m.index, trimmed);
    add(url, '', m.index, end);
  }
  found.sort((a, b) => a.index - b.index);
  return { urls: found.slice(0, max), more: Math.max(0, found.length - max) };
}
