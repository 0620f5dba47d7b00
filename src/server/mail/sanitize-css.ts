/**
 * The CSS filter for email: inline `style` attributes and `<style>` blocks.
 *
 * The bytes are read by css-tree, whose tokenizer and parser follow CSS Syntax
 * Level 3 as browsers do; this module only decides what to keep, on the parsed
 * tree, and emits css-tree's serialization of what it checked. Whatever the
 * parser could not read (its `Raw` nodes) is dropped.
 */
import { generate, ident, parse } from 'css-tree';
import type { Atrule, CssNode, Declaration, Rule, StyleSheet } from 'css-tree';

/**
 * Decides the fate of a URL found in CSS: the URL to emit instead, or `null` to
 * drop the declaration that holds it.
 */
export type CssUrlPolicy = (url: string) => string | null;

/** Properties that attach script or behaviour in some engine (IE, old Firefox, old Opera). */
const FORBIDDEN_PROPERTIES = new Set(['behavior', '-ms-behavior', 'binding', '-moz-binding', '-o-link', '-o-link-source', '-o-replace']);

/** Functions that run script (IE's `expression`) or load resources from string arguments the URL policy cannot see. */
const FORBIDDEN_FUNCTIONS = new Set([
  'expression', 'image-set', '-webkit-image-set', 'image', 'cross-fade', '-webkit-cross-fade', 'element', '-moz-element', 'src', 'paint', 'url',
]);

/**
 * Substrings that make a serialized declaration or prelude unsafe once escapes,
 * whitespace and case are normalised: a second line of defence behind the
 * tree checks, and the guarantee that a stylesheet never contains `<` (so it
 * cannot close its element).
 */
const FORBIDDEN_TEXT = ['expression(', 'javascript:', 'vbscript:', 'livescript:', 'mocha:', '@import', 'behavior', '-moz-binding', '<'];

/** A plain property name; custom properties (`--x`) are not kept (their values are never parsed). */
const PROPERTY_NAME = /^-?[a-z][a-z0-9-]*$/;

const MAX_NESTING = 8;

const ignoreErrors = () => {};

/**
 * Sanitizes the text of a `style` attribute.
 *
 * @param text - the attribute value as the DOM reports it (entities already decoded).
 * @param urlPolicy - what to do with each `url(...)` found.
 * @returns the declarations that survived, as css-tree serializes them, joined
 * with `; `; an empty string when none did.
 * @example
 * sanitizeDeclarations('color: red; background: url(javascript:alert(1))', () => null) // 'color:red'
 */
export function sanitizeDeclarations(text: string, urlPolicy: CssUrlPolicy): string {
  return failClosed(() => {
    const list = parse(text, { context: 'declarationList', parseValue: true, parseCustomProperty: false, onParseError: ignoreErrors });
    return list.type === 'DeclarationList' ? declarationsOf(list, urlPolicy) : '';
  });
}

/** CSS the parser or the walk cannot get through (a stack exhausted by nesting) is dropped whole. */
function failClosed(sanitize: () => string): string {
  try {
    return sanitize();
  } catch {
    return '';
  }
}

/**
 * Sanitizes the text of a `<style>` element: ordinary rules, `@media`,
 * `@supports`, `@font-face` and `@keyframes` are kept with their declarations
 * filtered like inline styles; every other at-rule (`@import`, `@charset`,
 * `@namespace`, `@page`, ...), nested rules, and any selector or prelude the
 * parser could not read or that holds `<`, a URL or a script scheme are dropped.
 *
 * @param text - the style element's text.
 * @param urlPolicy - what to do with each `url(...)` found.
 * @returns a stylesheet (one rule a line) that never contains `<`.
 */
export function sanitizeStylesheet(text: string, urlPolicy: CssUrlPolicy): string {
  return failClosed(() => stylesheetOf(text, urlPolicy));
}

function stylesheetOf(text: string, urlPolicy: CssUrlPolicy): string {
  const sheet = parse(text, {
    context: 'stylesheet',
    parseValue: true,
    parseRulePrelude: true,
    parseAtrulePrelude: true,
    parseCustomProperty: false,
    onParseError: ignoreErrors,
  }) as StyleSheet;
  return rulesOf(sheet.children.toArray(), urlPolicy, 0).join('\n');
}

function rulesOf(nodes: CssNode[], urlPolicy: CssUrlPolicy, depth: number): string[] {
  if (depth > MAX_NESTING) return [];
  const out: string[] = [];
  for (const node of nodes) {
    if (node.type === 'Rule') {
      const rule = ruleOf(node, urlPolicy);
      if (rule !== null) out.push(rule);
    } else if (node.type === 'Atrule') {
      const rule = atruleOf(node, urlPolicy, depth);
      if (rule !== null) out.push(rule);
    }
    // Anything else (Raw text the parser could not read, CDO/CDC tokens) is dropped.
  }
  return out;
}

function ruleOf(rule: Rule, urlPolicy: CssUrlPolicy): string | null {
  if (rule.prelude.type !== 'SelectorList') return null;
  const selector = generate(rule.prelude);
  if (!isSafePrelude(selector)) return null;
  const declarations = declarationsOf(rule.block, urlPolicy);
  return declarations === '' ? null : `${selector}{${declarations}}`;
}

function atruleOf(rule: Atrule, urlPolicy: CssUrlPolicy, depth: number): string | null {
  const name = ident.decode(rule.name).toLowerCase();
  if (rule.block === null) return null; // statement at-rules: @import, @charset, @namespace
  if (rule.prelude !== null && rule.prelude.type !== 'AtrulePrelude') return null;
  const prelude = rule.prelude === null ? '' : generate(rule.prelude);
  if (!isSafePrelude(prelude)) return null;
  const head = prelude === '' ? `@${name}` : `@${name} ${prelude}`;
  if (name === 'media' || name === 'supports') {
    const inner = rulesOf(rule.block.children.toArray(), urlPolicy, depth + 1);
    return inner.length === 0 ? null : `${head}{${inner.join('\n')}}`;
  }
  if (name === 'keyframes' || name === '-webkit-keyframes') {
    return `${head}{${rulesOf(rule.block.children.toArray(), urlPolicy, depth + 1).join('\n')}}`;
  }
  if (name === 'font-face') {
    const declarations = declarationsOf(rule.block, urlPolicy);
    return declarations === '' ? null : `${head}{${declarations}}`;
  }
  return null;
}

function isSafePrelude(prelude: string): boolean {
  const normalized = normalize(prelude);
  return !FORBIDDEN_TEXT.some((part) => normalized.includes(part)) && !normalized.includes('url(');
}

/** The declarations of a block or list that survive, joined with `; `. Nested rules are dropped. */
function declarationsOf(block: { children: { toArray(): CssNode[] } }, urlPolicy: CssUrlPolicy): string {
  const kept: string[] = [];
  for (const node of block.children.toArray()) {
    if (node.type !== 'Declaration') continue;
    const declaration = declarationOf(node, urlPolicy);
    if (declaration !== null) kept.push(declaration);
  }
  return kept.join('; ');
}

function declarationOf(declaration: Declaration, urlPolicy: CssUrlPolicy): string | null {
  const property = ident.decode(declaration.property).toLowerCase();
  if (!PROPERTY_NAME.test(property) || FORBIDDEN_PROPERTIES.has(property)) return null;
  // `!ie` and other hacks that are not `!important` are not CSS any browser applies.
  if (typeof declaration.important === 'string') return null;
  const value = declaration.value;
  if (value.type !== 'Value' || value.children.isEmpty) return null;
  if (!valueIsSafe(value.children.toArray(), urlPolicy)) return null;

  const text = generate(value);
  const normalized = normalize(text);
  if (FORBIDDEN_TEXT.some((part) => normalized.includes(part))) return null;
  // Absolute, fixed or sticky elements could leave the mail's box and cover the page that shows it.
  if (property === 'position' && normalized !== 'static' && normalized !== 'relative') return null;
  return `${property}:${text}${declaration.important ? '!important' : ''}`;
}

/**
 * Walks a value: every `url()` goes through the policy (and is rewritten to
 * its answer), forbidden functions and unreadable parts refuse the whole value.
 */
function valueIsSafe(nodes: CssNode[], urlPolicy: CssUrlPolicy): boolean {
  for (const node of nodes) {
    switch (node.type) {
      case 'Raw':
        return false;
      case 'Url': {
        const url = urlPolicy(node.value);
        if (url === null) return false;
        node.value = url;
        break;
      }
      case 'Function':
        if (FORBIDDEN_FUNCTIONS.has(ident.decode(node.name).toLowerCase())) return false;
        if (!valueIsSafe(node.children.toArray(), urlPolicy)) return false;
        break;
      default:
        // Parentheses, brackets and any other node with children.
        if ('children' in node && node.children !== null && !valueIsSafe(node.children.toArray(), urlPolicy)) return false;
        break;
    }
  }
  return true;
}

/**
 * What an engine would read: CSS escapes decoded, lower-cased, with
 * whitespace and control characters removed (URL parsers drop tabs and
 * newlines, so `java\9 script:` must still be seen as `javascript:`).
 */
function normalize(value: string): string {
  const unescaped = value.includes('\\')
    ? value.replace(/\\(?:([0-9a-f]{1,6})[ \t\n\r\f]?|([\s\S]))/gi, (_m, hex: string | undefined, char: string | undefined) => {
        if (hex !== undefined) {
          const code = Number.parseInt(hex, 16);
          return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code);
        }
        return char === '\n' ? '' : (char ?? '');
      })
    : value;
  // eslint-disable-next-line no-control-regex
  return unescaped.toLowerCase().replace(/[\s\u0000-\u001f\u007f]/g, '');
}
