/**
 * Reading a message's bodies into blocks of visible text, with the styling of
 * every run of text (large, bold, monospace, letter-spaced) and the codes laid
 * out one character per cell.
 */
import { EXTRACTION_BOUNDS, noteBound, parseHtml, textWithin, walk, type DomNode, type ExtractionBound } from './dom.ts';
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
/** A body (or the subject) as blocks of text joined by newlines, the text it hides, and the bounds that applied to reading it. */
export interface Doc { source: ExtractedFrom; text: string; blocks: Block[]; splits: SplitCode[]; hidden: HiddenText[]; bounds: ExtractionBound[] }

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

/** Digits laid out one per cell/box: `<tr><td>4</td><td>8</td>…</tr>`. */
function splitDigits(node: DomNode): string | null {
  const kids = (node.children ?? []).filter((c) => !(c.type === 'text' && (c.data ?? '').trim() === '') && c.type !== 'comment');
  if (kids.length < 4 || kids.length > 10) return null;
  const chars: string[] = [];
  for (const k of kids) {
    if (k.type !== 'tag' || !BLOCK_TAGS.has(k.name ?? '')) return null;
    const t = asciiDigits(textWithin(k, 16) ?? '').replace(/\s+/g, '');
    if (!/^[0-9A-Z]$/.test(t)) return null;
    chars.push(t);
  }
  return chars.join(' ');
}

/**
 * A block's text in pieces of at most {@link EXTRACTION_BOUNDS.block}
 * characters, cut at a space where one is near, each with its runs: every
 * rule applied to a block then costs a bounded amount, however long a
 * paragraph a mail writes.
 */
function pieces(text: string, runs: Run[]): Array<{ text: string; runs: Run[] }> {
  const max = EXTRACTION_BOUNDS.block;
  if (text.length <= max) return [{ text, runs }];
  const out: Array<{ text: string; runs: Run[] }> = [];
  let start = 0;
  let r = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + max);
    if (end < text.length) {
      const space = text.slice(start + max / 2, end).lastIndexOf(' ');
      if (space >= 0) end = start + max / 2 + space + 1;
    }
    while (r < runs.length && (runs[r] as Run).end <= start) r++;
    const own: Run[] = [];
    for (let k = r; k < runs.length && (runs[k] as Run).start < end; k++) {
      const run = runs[k] as Run;
      own.push({ start: Math.max(run.start, start) - start, end: Math.min(run.end, end) - start, style: run.style });
    }
    out.push({ text: text.slice(start, end), runs: own });
    start = end;
  }
  return out;
}

function finishDoc(source: ExtractedFrom, raw: Array<{ text: string; runs: Run[]; paragraph?: number }>, splits: SplitCode[]): Doc {
  const blocks: Block[] = [];
  const parts: string[] = [];
  let length = 0;
  for (const b of raw) {
    if (parts.length > 0) length += 1;
    blocks.push({ text: b.text, runs: b.runs, offset: length, ...(b.paragraph !== undefined ? { paragraph: b.paragraph } : {}) });
    parts.push(b.text);
    length += b.text.length;
  }
  return { source, text: parts.join('\n'), blocks, splits, hidden: [], bounds: [] };
}

interface WalkState { style: Style; vis: Visibility; block: boolean }

/** Reads an HTML body: visible text only, in blocks, with its styling; hidden text is set aside with the reason. */
export function htmlDoc(html: string): Doc {
  const bounds: ExtractionBound[] = [];
  const root = parseHtml(html, bounds);
  const raw: Array<{ text: string; runs: Run[] }> = [];
  const splits: SplitCode[] = [];
  const hidden: HiddenText[] = [];
  let cur: { text: string; runs: Run[]; endsWithSpace: boolean } = { text: '', runs: [], endsWithSpace: true };
  let tinyRun: HiddenText | null = null;
  const flush = (): void => {
    const trimmed = cur.endsWithSpace ? cur.text.replace(/ +$/, '') : cur.text;
    if (trimmed.trim() !== '') raw.push(...pieces(trimmed, cur.runs));
    cur = { text: '', runs: [], endsWithSpace: true };
    tinyRun = null;
  };
  const append = (data: string, style: Style): void => {
    let t = asciiDigits(data).replace(/(?:\s|\u200b|\u200c|\u200d|\ufeff|\u034f)+/g, ' ');
    if (cur.endsWithSpace) t = t.replace(/^ /, '');
    if (t === '') return;
    const start = cur.text.length;
    cur.text += t;
    cur.endsWithSpace = t.endsWith(' ');
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
  // What a client with images off shows: the alt text, in the image's place (whatever the font size around it).
  const readAlt = (node: DomNode, vis: Visibility): void => {
    const attrs = node.attribs ?? {};
    const alt = attrs['alt'];
    if (alt === undefined || alt.trim() === '' || visibilityOf(vis, attrs, parseCss(attrs['style'] ?? '')).hidden) return;
    append(` ${alt} `, PLAIN);
  };
  const deepest = walk<WalkState>(root, { style: PLAIN, vis: VISIBLE, block: false }, {
    enter(node, parent, depth) {
      if (node.type === 'text') {
        const reason = hiddenReason(parent.vis);
        if (reason) setAside(node.data ?? '', reason, true); else append(node.data ?? '', parent.style);
        return null;
      }
      if (node.type === 'root') return parent;
      if (node.type !== 'tag') return null;
      const name = (node.name ?? '').toLowerCase();
      if (name === 'img') { readAlt(node, parent.vis); return null; }
      if (SKIP_TAGS.has(name)) return null;
      if (name === 'br') { flush(); return null; }
      // Past the depth bound an element still ends a block, but its own styling and hiding are not read.
      const deep = depth > EXTRACTION_BOUNDS.depth;
      const attrs = deep ? {} : node.attribs ?? {};
      const css = parseCss(attrs['style'] ?? '');
      const inner = deep ? parent.vis : visibilityOf(parent.vis, attrs, css);
      if (inner.hidden) { setAside(textWithin(node) ?? '', inner.hidden, false); return null; }
      const next = deep ? parent.style : deriveStyle(parent.style, name, attrs, css);
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
      return { style: next, vis: inner, block };
    },
    leave(_node, state) {
      if (state.block) flush();
    },
  });
  flush();
  if (deepest > EXTRACTION_BOUNDS.depth) {
    noteBound(bounds, { bound: 'depth', limit: EXTRACTION_BOUNDS.depth, message: `elements nested deeper than ${EXTRACTION_BOUNDS.depth} levels (the HTML body reaches ${deepest}) were read without their own styling and hiding` });
  }
  return { ...finishDoc('html', raw, splits), hidden, bounds };
}

/** Reads a text body (or the subject): one block per non-blank line. */
export function textDoc(text: string, source: ExtractedFrom): Doc {
  const raw: Array<{ text: string; runs: Run[]; paragraph: number }> = [];
  let paragraph = 0;
  for (const line of text.split(/\r?\n/)) {
    const l = asciiDigits(line).replace(/\s+/g, ' ').trim();
    if (l === '') paragraph++;
    else for (const piece of pieces(l, [])) raw.push({ text: piece.text, runs: [], paragraph });
  }
  return finishDoc(source, raw, []);
}
