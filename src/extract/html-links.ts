/**
 * The links of an HTML body, read in one walk of the document: anchors with
 * their visible text and the block of text around them, and URLs written as
 * plain text outside any anchor (a mail that writes a URL without an `<a>`).
 * Each node is visited once (an anchor's own content twice); a block's text
 * is a slice of one buffer, never a new walk per link.
 */
import { EXTRACTION_BOUNDS, noteBound, parseHtml, walk, type DomNode, type ExtractionBound } from './dom.ts';
import { findTextUrls } from './text-urls.ts';
import { VISIBLE, hiddenReason, parseCss, visibilityOf, type Visibility } from './visibility.ts';

/** A link as written, before resolving and unwrapping. */
export interface RawLink {
  raw: string;
  text: string;
  context: string;
  source: 'html' | 'text';
  /** How the link was written: an anchor (`<a href>`, `<area href>`) or a URL in the text. */
  form: 'anchor' | 'text';
}

const BLOCKS = new Set('p,li,td,th,div,h1,h2,h3,h4,h5,h6,blockquote,section,article,dd,dt,pre,center,table,body'.split(','));
const SPACED = new Set([...BLOCKS, 'br', 'tr', 'ul', 'ol', 'hr']);
const SKIPPED = new Set(['script', 'style', 'head', 'template', 'noscript']);
const SPACE = /(?:\s|\u00a0|\u200b|\u200c|\u200d|\ufeff)+/g;

/** Whitespace collapsed to single spaces, trimmed. */
export function collapse(s: string): string {
  return s.replace(SPACE, ' ').trim();
}

/** Text written in pieces, whitespace collapsed as it comes; `\n` marks block boundaries. */
class Buffer {
  readonly parts: string[] = [];
  length = 0;
  #pending: '' | ' ' | '\n' = '';
  text(data: string): void {
    let t = data.replace(SPACE, ' ');
    if (t.startsWith(' ')) { this.#space(' '); t = t.slice(1); }
    if (t === '') return;
    const trailing = t.endsWith(' ');
    if (trailing) t = t.slice(0, -1);
    if (t !== '') {
      if (this.#pending !== '' && this.length > 0) { this.parts.push(this.#pending); this.length += 1; }
      this.#pending = '';
      this.parts.push(t);
      this.length += t.length;
    }
    if (trailing) this.#space(' ');
  }
  boundary(): void { this.#space('\n'); }
  #space(kind: ' ' | '\n'): void { if (this.#pending !== '\n') this.#pending = kind; }
  join(): string { return this.parts.join(''); }
}

interface State { vis: Visibility; inAnchor: boolean; block: boolean; spaced: boolean }
interface Anchor { node: DomNode; vis: Visibility; start: number; end: number; loose: number; blocks: number[] }

/** What a reader sees inside an anchor: its visible text, whether it shows an image, all its text, the first image alt. */
function anchorContent(node: DomNode, vis: Visibility): { shown: string; image: boolean; all: string; alt: string | undefined } {
  let shown = '';
  let all = '';
  let image = false;
  let alt: string | undefined;
  const stack: Array<{ n: DomNode; v: Visibility }> = (node.children ?? []).map((n) => ({ n, v: vis })).reverse();
  for (let seen = 0; stack.length > 0 && seen < 50_000; seen++) {
    const { n, v } = stack.pop() as { n: DomNode; v: Visibility };
    if (n.type === 'text') {
      all += n.data ?? '';
      if (!v.hidden && !v.tiny) shown += n.data ?? '';
      continue;
    }
    if (n.type !== 'tag') continue;
    const attrs = n.attribs ?? {};
    if (n.name === 'img') {
      if (alt === undefined && attrs['alt'] !== undefined) alt = attrs['alt'];
      if (!v.hidden) image = true;
      continue;
    }
    const inner = v.hidden ? v : visibilityOf(v, attrs, parseCss(attrs['style'] ?? ''));
    const kids = n.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ n: kids[i] as DomNode, v: inner });
  }
  return { shown, image, all, alt };
}

/** Undoes HTML escaping that survived into a URL: `&amp;name=` → `&name=` (no real URL contains it). */
export function fixEscapedAmpersands(url: string): string {
  return url.replace(/&(?:amp|#0*38|#x0*26);(?=[\w.%~-]+=)/gi, '&');
}

/** Shortens a block's text to the sentence(s) around `needle`, at most ~160 characters. */
export function shortContext(block: string, needle: string, max = 160): string {
  if (block.length <= max) return block;
  const at = needle ? block.indexOf(needle) : -1;
  const sentences = block.split(/(?<=[.!?。！？])\s+/);
  let offset = 0;
  for (const s of sentences) {
    const end = offset + s.length;
    if (at >= offset && at < end + 1 && s.length <= max) return s;
    offset = end + 1;
  }
  const center = at >= 0 ? at + needle.length / 2 : 0;
  let start = Math.max(0, Math.round(center - max / 2));
  let stop = Math.min(block.length, start + max);
  start = Math.max(0, stop - max);
  if (start > 0) start = block.indexOf(' ', start) + 1 || start;
  const space = block.lastIndexOf(' ', stop);
  if (stop < block.length && space > start) stop = space;
  return `${start > 0 ? '…' : ''}${block.slice(start, stop).trim()}${stop < block.length ? '…' : ''}`;
}

/** The link a reader sees for one anchor, with its context (climbing out of a block that holds only the link); `null` for one nobody can see. */
function anchorLink(a: Anchor, blockText: (id: number, around: { start: number; end: number }) => string, blockIsBody: readonly boolean[]): (RawLink & { at: number }) | null {
  if (a.vis.hidden) return null;
  const content = anchorContent(a.node, a.vis);
  // A link a reader cannot see is not offered: all its text zero-sized and no image.
  if (collapse(content.shown) === '' && !content.image && content.all.trim() !== '') return null;
  const attrs = a.node.attribs ?? {};
  const raw = fixEscapedAmpersands((attrs['href'] ?? '').replace(/[\t\n\r]/g, '').trim());
  let linkText = collapse(content.shown);
  if (linkText === '') linkText = collapse(content.alt ?? attrs['aria-label'] ?? attrs['title'] ?? attrs['alt'] ?? '');
  let context = '';
  const [first, ...ups] = a.blocks;
  let block = first;
  if (block !== undefined) {
    context = blockText(block, a);
    for (let climb = 0; climb < 3 && (context === linkText || context === '') && !blockIsBody[block]; climb++) {
      const up = ups.shift();
      if (up === undefined) break;
      const upText = blockText(up, a);
      if (upText.length > 600) break;
      block = up;
      context = upText;
    }
  }
  return { raw, text: linkText, context: shortContext(context, linkText), source: 'html', form: 'anchor', at: a.loose };
}

/** The links of an HTML body in document order, and the bounds that applied. */
export function linksFromHtml(html: string): { links: RawLink[]; bounds: ExtractionBound[] } {
  const bounds: ExtractionBound[] = [];
  const root = parseHtml(html, bounds);
  const all = new Buffer();
  const loose = new Buffer();
  const blockStart: number[] = [];
  const blockEnd: number[] = [];
  const blockIsBody: boolean[] = [];
  const open: number[] = [];
  const anchors: Anchor[] = [];
  let anchorCount = 0;
  const deepest = walk<State>(root, { vis: VISIBLE, inAnchor: false, block: false, spaced: false }, {
    enter(node, parent, depth) {
      if (node.type === 'text') {
        all.text(node.data ?? '');
        if (!parent.inAnchor && hiddenReason(parent.vis) === null) loose.text(node.data ?? '');
        return null;
      }
      if (node.type === 'root') return parent;
      if (node.type !== 'tag') return null;
      const name = (node.name ?? '').toLowerCase();
      if (SKIPPED.has(name)) return null;
      const attrs = node.attribs ?? {};
      const deep = depth > EXTRACTION_BOUNDS.depth;
      const vis = deep ? parent.vis : visibilityOf(parent.vis, attrs, parseCss(attrs['style'] ?? ''));
      const isAnchor = (name === 'a' || name === 'area') && attrs['href'] !== undefined;
      if (isAnchor) {
        anchorCount++;
        if (anchors.length < EXTRACTION_BOUNDS.links) anchors.push({ node, vis, start: all.length, end: all.length, loose: loose.length, blocks: open.slice(-4).reverse() });
      }
      // Hidden content is no block's text (a hidden anchor was noted above, to be left out with its reason).
      if (vis.hidden) return null;
      const spaced = SPACED.has(name);
      const block = BLOCKS.has(name);
      if (spaced) { all.boundary(); loose.boundary(); }
      if (block) {
        open.push(blockStart.length);
        blockStart.push(all.length);
        blockEnd.push(-1);
        blockIsBody.push(name === 'body');
      }
      return { vis, inAnchor: parent.inAnchor || isAnchor, block, spaced };
    },
    leave(node, state) {
      if (state.block) blockEnd[open.pop() as number] = all.length;
      if (state.spaced) { all.boundary(); loose.boundary(); }
      const last = anchors[anchors.length - 1];
      if (last && last.node === node) last.end = all.length;
    },
  });
  const text = all.join();
  if (deepest > EXTRACTION_BOUNDS.depth) {
    noteBound(bounds, { bound: 'depth', limit: EXTRACTION_BOUNDS.depth, message: `elements nested deeper than ${EXTRACTION_BOUNDS.depth} levels (the HTML body reaches ${deepest}) were read without their own styling and hiding` });
  }
  const blockText = (id: number, around: { start: number; end: number }): string => {
    const start = blockStart[id] ?? 0;
    const end = blockEnd[id] === -1 ? text.length : blockEnd[id] ?? text.length;
    // A long block is read around the link only: the context is a sentence or ~160 characters anyway.
    if (end - start <= 1_200) return collapse(text.slice(start, end));
    const from = Math.max(start, around.start - 600);
    const to = Math.min(end, around.end + 600);
    return `${from > start ? '… ' : ''}${collapse(text.slice(from, to))}${to < end ? ' …' : ''}`;
  };
  const out: Array<RawLink & { at: number }> = [];
  for (const a of anchors) {
    const link = anchorLink(a, blockText, blockIsBody);
    if (link) out.push(link);
  }
  const room = EXTRACTION_BOUNDS.links - anchors.length;
  const written = room > 0 ? findTextUrls(loose.join(), room) : { urls: [], more: 0 };
  for (const u of written.urls) {
    out.push({ raw: fixEscapedAmpersands(u.url), text: u.label, context: shortContext(u.context, u.url.slice(0, 20)), source: 'html', form: 'text', at: u.index });
  }
  if (anchorCount > anchors.length || written.more > 0) {
    noteBound(bounds, { bound: 'links', limit: EXTRACTION_BOUNDS.links, message: `only the first ${EXTRACTION_BOUNDS.links} links of the HTML body were read (it has ${anchorCount} anchors${written.more > 0 ? ' and more URLs in its text' : ''})` });
  }
  // Document order: a URL in the text before an anchor comes first (stable for equal positions: anchors first).
  out.sort((x, y) => x.at - y.at || (x.form === y.form ? 0 : x.form === 'anchor' ? -1 : 1));
  return { links: out.map(({ at: _at, ...link }) => link), bounds };
}
