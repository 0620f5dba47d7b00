/**
 * Reading a message's bodies into blocks of visible text, with the styling of
 * every run of text (large, bold, monospace, letter-spaced) and the codes laid
 * out one character per cell.
 */
import * as cheerio from 'cheerio';
import type { ExtractedFrom } from './types.ts';
import { VISIBLE, hiddenReason, parseCss, visibilityOf, type Visibility } from './visibility.ts';

/** How a run of text looks. */
export interface Style { large: boolean; bold: boolean; mono: boolean; spaced: boolean }
/** A styled stretch of a block's text. */
export interface Run { start: number; end: number; style: Style }
/**
 * One block (paragraph, cell, line) of visible text; `offset` is its start in
 * the document text. In a text body a block is a line, and `paragraph` counts
 * the blank-line separated paragraphs (absent in HTML, where every block is a paragraph).
 */
export interface Block { text: string; runs: Run[]; offset: number; paragraph?: number }
/** A code written one character per cell, found in the block at `blockIndex`. */
export interface SplitCode { raw: string; blockIndex: number; style: Style }
/** Text a reader cannot see, and why. */
export interface HiddenText { text: string; reason: string }
/** A body (or the subject) as blocks of text joined by newlines, and the text it hides. */
export interface Doc { source: ExtractedFrom; text: string; blocks: Block[]; splits: SplitCode[]; hidden: HiddenText[] }
interface DomNode { type: string; name?: string; data?: string; attribs?: Record<string, string>; children?: DomNode[] }

/** The style of unstyled text. */
export const PLAIN: Style = { large: false, bold: false, mono: false, spaced: false };
const BLOCK_TAGS = new Set(['address', 'article', 'aside', 'blockquote', 'body', 'center', 'dd', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'caption']);
const SKIP_TAGS = new Set(['head', 'title', 'script', 'style', 'template', 'noscript', 'svg', 'img', 'meta', 'link']);
const MONO_FONT = /mono|courier|consolas|menlo|monaco|lucida console|source code|inconsolata|fira code|sf mono/i;

function sizeClass(value: string | undefined): boolean | null {
  if (!value) return null;
  if (/^(?:x-large|xx-large|xxx-large|larger)$/.test(value)) return true;
  if (/^(?:xx-small|x-small|small|medium|smaller)$/.test(value)) return false;
  const m = /^(\d+(?:\.\d+)?)(px|pt|em|rem|%)?/.exec(value);
  if (!m) return null;
  const n = Number(m[1]);
  switch (m[2]) {
    case 'pt': return n >= 15;
    case 'em': case 'rem': return n >= 1.4 ? true : n < 1 ? false : null;
    case '%': return n >= 140 ? true : n < 100 ? false : null;
    default: return n >= 20;
  }
}

function spacingClass(value: string | undefined): boolean | null {
  if (!value) return null;
  if (value === 'normal') return false;
  const m = /^(-?\d+(?:\.\d+)?)(px|pt|em|rem)?/.exec(value);
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] === 'em' || m[2] === 'rem' ? n >= 0.1 : n >= 2;
}

function deriveStyle(parent: Style, name: string, attrs: Record<string, string>, css: Record<string, string>): Style {
  const s: Style = { ...parent };
  if (name === 'h1' || name === 'h2' || name === 'big') s.large = true;
  if (/^h[1-6]$/.test(name) || name === 'b' || name === 'strong' || name === 'th') s.bold = true;
  if (name === 'code' || name === 'pre' || name === 'kbd' || name === 'samp' || name === 'tt') s.mono = true;
  if (name === 'font') {
    const size = attrs['size'];
    if (size) {
      const n = size.startsWith('+') ? 3 + Number(size.slice(1)) : size.startsWith('-') ? 3 - Number(size.slice(1)) : Number(size);
      if (Number.isFinite(n)) s.large = n >= 5;
    }
    if (attrs['face'] && MONO_FONT.test(attrs['face'])) s.mono = true;
  }
  const font = css['font'];
  if (font) {
    if (/\bbold\b|\b[6-9]00\b/.test(font)) s.bold = true;
    const large = sizeClass(/(\d+(?:\.\d+)?(?:px|pt|em|rem|%))/.exec(font)?.[1]);
    if (large !== null) s.large = large;
    if (MONO_FONT.test(font)) s.mono = true;
  }
  const large = sizeClass(css['font-size']);
  if (large !== null) s.large = large;
  const weight = css['font-weight'];
  if (weight) s.bold = /^(?:bold|bolder|[6-9]00)$/.test(weight);
  if (css['font-family']) s.mono = MONO_FONT.test(css['font-family']);
  const spaced = spacingClass(css['letter-spacing']);
  if (spaced !== null) s.spaced = spaced;
  return s;
}

/** Full-width digits and Latin letters (common in CJK mail) as ASCII; everything else untouched. */
function asciiDigits(s: string): string {
  return s.replace(/[\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}

function textOf(node: DomNode): string {
  if (node.type === 'text') return node.data ?? '';
  if (node.type !== 'tag') return '';
  return (node.children ?? []).map(textOf).join('');
}

/** Digits laid out one per cell/box: `<tr><td>4</td><td>8</td>…</tr>`. */
function splitDigits(node: DomNode): string | null {
  const kids = (node.children ?? []).filter((c) => !(c.type === 'text' && (c.data ?? '').trim() === '') && c.type !== 'comment');
  if (kids.length < 4 || kids.length > 10) return null;
  const chars: string[] = [];
  for (const k of kids) {
    if (k.type !== 'tag' || !BLOCK_TAGS.has(k.name ?? '')) return null;
    const t = asciiDigits(textOf(k)).replace(/\s+/g, '');
    if (!/^[0-9A-Z]$/.test(t)) return null;
    chars.push(t);
  }
  return chars.join(' ');
}

function finishDoc(source: ExtractedFrom, raw: Array<{ text: string; runs: Run[]; paragraph?: number }>, splits: SplitCode[]): Doc {
  const blocks: Block[] = [];
  let text = '';
  for (const b of raw) {
    if (text !== '') text += '\n';
    blocks.push({ text: b.text, runs: b.runs, offset: text.length, ...(b.paragraph !== undefined ? { paragraph: b.paragraph } : {}) });
    text += b.text;
  }
  return { source, text, blocks, splits, hidden: [] };
}

/** Reads an HTML body: visible text only, in blocks, with its styling; hidden text is set aside with the reason. */
export function htmlDoc(html: string): Doc {
  const $ = cheerio.load(html);
  const root = $.root()[0] as unknown as DomNode;
  const raw: Array<{ text: string; runs: Run[] }> = [];
  const splits: SplitCode[] = [];
  const hidden: HiddenText[] = [];
  let cur: { text: string; runs: Run[] } = { text: '', runs: [] };
  let tinyRun: HiddenText | null = null;
  const flush = (): void => {
    const trimmed = cur.text.replace(/ +$/, '');
    if (trimmed.trim() !== '') raw.push({ text: trimmed, runs: cur.runs });
    cur = { text: '', runs: [] };
    tinyRun = null;
  };
  const append = (data: string, style: Style): void => {
    let t = asciiDigits(data).replace(/(?:\s|\u200b|\u200c|\u200d|\ufeff|\u034f)+/g, ' ');
    if (cur.text === '' || cur.text.endsWith(' ')) t = t.replace(/^ /, '');
    if (t === '') return;
    const start = cur.text.length;
    cur.text += t;
    cur.runs.push({ start, end: cur.text.length, style });
    tinyRun = null;
  };
  const setAside = (text: string, reason: string, merge: boolean): void => {
    const t = asciiDigits(text).replace(/\s+/g, ' ');
    if (t.trim() === '') return;
    if (merge && tinyRun) { tinyRun.text += t; return; }
    const entry = { text: t, reason };
    hidden.push(entry);
    tinyRun = merge ? entry : null;
  };
  const visit = (node: DomNode, style: Style, vis: Visibility): void => {
    if (node.type === 'text') {
      const reason = hiddenReason(vis);
      if (reason) setAside(node.data ?? '', reason, true); else append(node.data ?? '', style);
      return;
    }
    if (node.type !== 'tag' && node.type !== 'root') return;
    const name = (node.name ?? '').toLowerCase();
    if (SKIP_TAGS.has(name)) return;
    const attrs = node.attribs ?? {};
    const css = parseCss(attrs['style'] ?? '');
    const inner = node.type === 'root' ? vis : visibilityOf(vis, attrs, css);
    if (inner.hidden) { setAside(textOf(node), inner.hidden, false); return; }
    if (name === 'br') { flush(); return; }
    const next = node.type === 'root' ? style : deriveStyle(style, name, attrs, css);
    const block = BLOCK_TAGS.has(name);
    if (block) {
      flush();
      const split = splitDigits(node);
      if (split) {
        const cell = (node.children ?? []).find((c) => c.type === 'tag');
        const cellAttrs = cell?.attribs ?? {};
        splits.push({ raw: split, blockIndex: raw.length, style: cell ? deriveStyle(next, (cell.name ?? '').toLowerCase(), cellAttrs, parseCss(cellAttrs['style'] ?? '')) : next });
      }
    }
    for (const child of node.children ?? []) visit(child, next, inner);
    if (block) flush();
  };
  visit(root, PLAIN, VISIBLE);
  flush();
  return { ...finishDoc('html', raw, splits), hidden };
}

/** Reads a text body (or the subject): one block per non-blank line. */
export function textDoc(text: string, source: ExtractedFrom): Doc {
  const raw: Array<{ text: string; runs: Run[]; paragraph: number }> = [];
  let paragraph = 0;
  for (const line of text.split(/\r?\n/)) {
    const l = asciiDigits(line).replace(/\s+/g, ' ').trim();
    if (l === '') paragraph++;
    else raw.push({ text: l, runs: [], paragraph });
  }
  return finishDoc(source, raw, []);
}
