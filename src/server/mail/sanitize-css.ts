/**
 * A small CSS filter for email: inline `style` attributes and `<style>` blocks.
 *
 * It does not try to understand every property. It splits CSS into rules and
 * declarations (aware of strings, comments, parentheses and braces), drops every
 * declaration that could run script or load something it should not, rewrites
 * the URLs it keeps, and re-emits what is left. Whatever it cannot read is dropped.
 */

/**
 * Decides the fate of a URL found in CSS: the URL to emit instead, or `null` to
 * drop the declaration that holds it.
 */
export type CssUrlPolicy = (url: string) => string | null;

/** Properties that attach script or behaviour in some engine (IE, old Firefox, old Opera). */
const FORBIDDEN_PROPERTIES = new Set(['behavior', '-ms-behavior', 'binding', '-moz-binding', '-o-link', '-o-link-source', '-o-replace']);

/** Substrings that make a declaration unsafe once escapes, comments, whitespace and case are normalised. */
const FORBIDDEN_VALUE_PARTS = ['expression(', 'javascript:', 'vbscript:', 'livescript:', 'mocha:', '@import', 'behavior', '-moz-binding', '<'];

/** Functions whose string arguments load resources; too rare in email to be worth parsing. */
const STRING_URL_FUNCTIONS = /(?:^|[^a-z0-9_-])(?:-webkit-)?(?:image-set|image|cross-fade|element|src)\(/;

const PROPERTY_NAME = /^(?:--[a-z0-9_-]+|-?[a-z][a-z0-9-]*)$/;

/**
 * Sanitizes the text of a `style` attribute.
 *
 * @param text - the attribute value as the DOM reports it (entities already decoded).
 * @param urlPolicy - what to do with each `url(...)` found.
 * @returns the declarations that survived, joined with `; `, or an empty string.
 * @example
 * sanitizeDeclarations('color:red; background:url(javascript:alert(1))', () => null) // 'color:red'
 */
export function sanitizeDeclarations(text: string, urlPolicy: CssUrlPolicy): string {
  const kept: string[] = [];
  for (const chunk of splitTopLevel(stripComments(text), ';')) {
    const declaration = sanitizeDeclaration(chunk, urlPolicy);
    if (declaration !== null) kept.push(declaration);
  }
  return kept.join('; ');
}

/**
 * Sanitizes the text of a `<style>` element: ordinary rules, `@media`,
 * `@supports`, `@font-face` and `@keyframes` are kept with their declarations
 * filtered like inline styles; every other at-rule (`@import`, `@charset`,
 * `@namespace`, `@page`, ...) is dropped, as is any selector or prelude that
 * contains `<`, `\` or unbalanced braces.
 *
 * @param text - the style element's text.
 * @param urlPolicy - what to do with each `url(...)` found.
 * @returns a stylesheet that never contains `<`, so it cannot close its element.
 */
export function sanitizeStylesheet(text: string, urlPolicy: CssUrlPolicy): string {
  return sanitizeRules(stripComments(text), urlPolicy, 0);
}

const MAX_NESTING = 8;

function sanitizeRules(css: string, urlPolicy: CssUrlPolicy, depth: number): string {
  if (depth > MAX_NESTING) return '';
  const out: string[] = [];
  let i = 0;
  while (i < css.length) {
    // The prelude runs to the first top-level `{` or `;`.
    const stop = findTopLevel(css, i, ['{', ';']);
    if (stop === -1) break; // trailing garbage without a block
    const prelude = css.slice(i, stop).trim();
    if (css[stop] === ';') {
      // A statement at-rule (@import, @charset, @namespace) or stray text: dropped.
      i = stop + 1;
      continue;
    }
    const close = findMatchingBrace(css, stop);
    if (close === -1) break; // unterminated block: drop the rest
    const body = css.slice(stop + 1, close);
    i = close + 1;
    if (prelude === '' || !isSafePrelude(prelude)) continue;

    if (prelude.startsWith('@')) {
      const name = /^@([a-z-]+)/i.exec(prelude)?.[1]?.toLowerCase() ?? '';
      if (name === 'media' || name === 'supports') {
        const inner = sanitizeRules(body, urlPolicy, depth + 1);
        if (inner !== '') out.push(`${prelude}{${inner}}`);
      } else if (name === 'keyframes' || name === '-webkit-keyframes') {
        const inner = sanitizeRules(body, urlPolicy, depth + 1);
        out.push(`${prelude}{${inner}}`);
      } else if (name === 'font-face') {
        const declarations = sanitizeDeclarations(body, urlPolicy);
        if (declarations !== '') out.push(`${prelude}{${declarations}}`);
      }
      continue;
    }
    const declarations = sanitizeDeclarations(body, urlPolicy);
    if (declarations !== '') out.push(`${prelude}{${declarations}}`);
  }
  return out.join('\n');
}

function isSafePrelude(prelude: string): boolean {
  if (/[<\\{}]/.test(prelude)) return false;
  const normalized = normalize(prelude);
  return !FORBIDDEN_VALUE_PARTS.some((part) => normalized.includes(part)) && !normalized.includes('url(');
}

function sanitizeDeclaration(chunk: string, urlPolicy: CssUrlPolicy): string | null {
  const colon = chunk.indexOf(':');
  if (colon === -1) return null;
  const property = chunk.slice(0, colon).trim().toLowerCase();
  let value = chunk.slice(colon + 1).trim();
  if (!PROPERTY_NAME.test(property) || FORBIDDEN_PROPERTIES.has(property)) return null;
  // Nested rules (CSS nesting) and stray braces are not declarations.
  if (value === '' || /[{}]/.test(value)) return null;

  const normalized = normalize(value);
  if (FORBIDDEN_VALUE_PARTS.some((part) => normalized.includes(part))) return null;
  if (STRING_URL_FUNCTIONS.test(normalized)) return null;
  // Absolute, fixed or sticky elements could leave the mail's box and cover the page that shows it.
  if (property === 'position' && !/^(?:static|relative)(?:!important)?$/.test(normalized)) return null;

  if (normalized.includes('url(')) {
    // Escapes inside a declaration that loads something: too clever for an email, dropped.
    if (value.includes('\\')) return null;
    const rewritten = rewriteUrls(value, urlPolicy);
    if (rewritten === null) return null;
    value = rewritten;
  }
  return `${property}:${value}`;
}

/**
 * Rewrites every `url(...)` in a value through the policy; `null` when one is
 * refused or a `url(` cannot be read.
 */
function rewriteUrls(value: string, urlPolicy: CssUrlPolicy): string | null {
  let out = '';
  let i = 0;
  const lower = value.toLowerCase();
  for (;;) {
    const start = lower.indexOf('url(', i);
    if (start === -1) break;
    out += value.slice(i, start);
    let j = start + 4;
    while (j < value.length && isWhitespace(value[j])) j++;
    let url: string;
    const quote = value[j];
    if (quote === '"' || quote === "'") {
      const end = value.indexOf(quote, j + 1);
      if (end === -1) return null;
      url = value.slice(j + 1, end);
      j = end + 1;
      while (j < value.length && isWhitespace(value[j])) j++;
      if (value[j] !== ')') return null;
    } else {
      const end = value.indexOf(')', j);
      if (end === -1) return null;
      url = value.slice(j, end).trim();
      if (/["'(\s]/.test(url)) return null;
      j = end;
    }
    const replacement = urlPolicy(url);
    if (replacement === null) return null;
    out += `url("${replacement.replace(/["\\\n\r\f<>]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}")`;
    i = j + 1;
  }
  return out + value.slice(i);
}

/** Replaces comments by a space (outside strings); an unterminated comment ends the text. */
function stripComments(css: string): string {
  let out = '';
  let i = 0;
  let quote: string | null = null;
  while (i < css.length) {
    const c = css[i]!;
    if (quote !== null) {
      out += c;
      if (c === '\\' && i + 1 < css.length) {
        out += css[i + 1];
        i += 2;
        continue;
      }
      if (c === quote) quote = null;
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      out += c;
      i++;
      continue;
    }
    if (c === '/' && css[i + 1] === '*') {
      const end = css.indexOf('*/', i + 2);
      if (end === -1) break;
      out += ' ';
      i = end + 2;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/**
 * Scans from `from` (comment-free text) and calls `visit` with each character
 * outside strings, with the current parenthesis and brace depth; `visit`
 * returns true to stop. Returns the index where it stopped, or -1.
 */
function scan(css: string, from: number, visit: (c: string, index: number, parens: number, braces: number) => boolean): number {
  let quote: string | null = null;
  let parens = 0;
  let braces = 0;
  for (let i = from; i < css.length; i++) {
    const c = css[i]!;
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      continue;
    }
    if (visit(c, i, parens, braces)) return i;
    if (c === '(') parens++;
    else if (c === ')') parens = Math.max(0, parens - 1);
    else if (c === '{') braces++;
    else if (c === '}') braces--;
  }
  return -1;
}

function findTopLevel(css: string, from: number, targets: string[]): number {
  return scan(css, from, (c, _i, parens) => parens === 0 && targets.includes(c));
}

function findMatchingBrace(css: string, open: number): number {
  return scan(css, open, (c, _i, _parens, braces) => c === '}' && braces === 1);
}

function splitTopLevel(css: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  scan(css, 0, (c, i, parens, braces) => {
    if (c === separator && parens === 0 && braces === 0) {
      parts.push(css.slice(start, i));
      start = i + 1;
    }
    return false;
  });
  parts.push(css.slice(start));
  return parts;
}

function isWhitespace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
}

/**
 * What an engine would read: CSS escapes decoded, lower-cased, with
 * whitespace and control characters removed (URL parsers drop tabs and
 * newlines, so `java\9 script:` must still be seen as `javascript:`).
 */
function normalize(value: string): string {
  const unescaped = value.replace(/\\(?:([0-9a-f]{1,6})[ \t\n\r\f]?|([\s\S]))/gi, (_m, hex: string | undefined, char: string | undefined) => {
    if (hex !== undefined) {
      const code = Number.parseInt(hex, 16);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code);
    }
    return char === '\n' ? '' : (char ?? '');
  });
  // eslint-disable-next-line no-control-regex
  return unescaped.toLowerCase().replace(/[\s\u0000-\u001f\u007f]/g, '');
}
