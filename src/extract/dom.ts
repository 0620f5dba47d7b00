/**
 * Walking a parsed HTML body without recursion, and the bounds on what
 * extraction reads. A document of any depth is walked with an explicit stack,
 * each node once; no step re-walks the document for one link or candidate.
 */

import * as cheerio from 'cheerio';

/** The parts of a parsed DOM node extraction reads (domhandler's nodes, as cheerio gives them). */
export interface DomNode { type: string; name?: string; data?: string; attribs?: Record<string, string>; children?: DomNode[]; parent?: DomNode | null }

/**
 * The bounds on what one extraction reads. They are far above what real mail
 * needs; when one applies, the result names it (`bounds` on what
 * `extractLinks` and `extractOtps` return, and the errors of `findLink` and
 * `extractOtp`).
 */
export const EXTRACTION_BOUNDS = {
  /** Links (anchors of the HTML body, or URLs of a text) read per body; later ones are not read. */
  links: 1_000,
  /** Code-shaped strings scored per body (and as many ruled out); later ones are not considered. */
  candidates: 1_000,
  /** Levels of element nesting whose styling and hiding are read; deeper elements still separate blocks, but their own styles are not read. */
  depth: 256,
  /**
   * Estimated nesting past which the HTML is parsed with htmlparser2 instead
   * of parse5: parse5 follows the HTML standard's tree building, which costs
   * time in proportion to the depth for every tag (quadratic in all).
   */
  parserDepth: 512,
  /** Characters of one block of text read as one piece; a longer paragraph or line is read in pieces of this size. */
  block: 4_000,
  /** Characters of an href unwrapped or of a URL found in text; longer ones are kept as written. */
  url: 16_384,
} as const;

/** Which bound applied, how far it reaches, and what it left out, in words. */
export interface ExtractionBound {
  /** The bound's name, as in {@link EXTRACTION_BOUNDS}: `'links'`, `'candidates'` or `'depth'`. */
  bound: 'links' | 'candidates' | 'depth';
  /** The limit that applied. */
  limit: number;
  /** What was left out because of it, e.g. `'links after the first 1000 were not read (8000 in the HTML body)'`. */
  message: string;
}

/** Adds a bound to a list once (the first report of each bound wins). */
export function noteBound(bounds: ExtractionBound[], bound: ExtractionBound): void {
  if (!bounds.some((b) => b.bound === bound.bound)) bounds.push(bound);
}

/** What a walk's visitor does with one node. */
export interface Visitor<S> {
  /**
   * Called on entering a node with the state of its parent; returns the state
   * of its children, or `null` to skip them. `depth` is 0 for the root.
   */
  enter(node: DomNode, parent: S, depth: number): S | null;
  /** Called after a node's children, with the state `enter` returned for it. */
  leave?(node: DomNode, state: S): void;
}

/** Walks `root` in document order, each node once, with an explicit stack (no recursion). Returns the deepest level reached. */
export function walk<S>(root: DomNode, initial: S, visitor: Visitor<S>): number {
  const first = visitor.enter(root, initial, 0);
  if (first === null) return 0;
  const stack: Array<{ node: DomNode; state: S; next: number }> = [{ node: root, state: first, next: 0 }];
  let deepest = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { node: DomNode; state: S; next: number };
    const child = top.node.children?.[top.next];
    if (child === undefined) {
      stack.pop();
      visitor.leave?.(top.node, top.state);
      continue;
    }
    top.next++;
    const depth = stack.length;
    if (depth > deepest) deepest = depth;
    const state = visitor.enter(child, top.state, depth);
    if (state === null) continue;
    if (child.children && child.children.length > 0) stack.push({ node: child, state, next: 0 });
    else visitor.leave?.(child, state);
  }
  return deepest;
}

/**
 * The text inside `node` (every text node, hidden or not), read iteratively.
 * With `maxNodes`, gives up (`null`) past that many nodes: a caller that only
 * needs short texts (one character per table cell) never reads a big subtree.
 */
export function textWithin(node: DomNode, maxNodes = Infinity): string | null {
  let out = '';
  let seen = 0;
  const stack: DomNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop() as DomNode;
    if (++seen > maxNodes) return null;
    if (n.type === 'text') out += n.data ?? '';
    else if (n.type === 'tag' || n.type === 'root') {
      const kids = n.children ?? [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as DomNode);
    }
  }
  return out;
}

/** Elements closed by the next of their kind or by their parent: they do not add to the nesting a parser builds. */
const SELF_CLOSING = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'optgroup', 'tbody', 'thead', 'tfoot', 'colgroup', 'rb', 'rt', 'rp',
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

/** The deepest nesting of `html`'s tags, counted in one linear scan (an estimate: implied closings are not modelled). */
export function nestingOf(html: string): number {
  let depth = 0;
  let deepest = 0;
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^<>]*?(\/?)>/g)) {
    if (SELF_CLOSING.has((m[2] ?? '').toLowerCase()) || m[3] === '/') continue;
    depth = m[1] === '/' ? Math.max(0, depth - 1) : depth + 1;
    if (depth > deepest) deepest = depth;
  }
  return deepest;
}

/**
 * Parses an HTML body: with parse5 (as a browser builds the tree), or, when
 * its tags nest deeper than {@link EXTRACTION_BOUNDS.parserDepth}, with
 * htmlparser2, whose cost stays linear however deep the nesting; `bounds`
 * then names the `depth` bound.
 */
export function parseHtml(html: string, bounds: ExtractionBound[]): DomNode {
  const nesting = nestingOf(html);
  if (nesting <= EXTRACTION_BOUNDS.parserDepth) return cheerio.load(html).root()[0] as unknown as DomNode;
  noteBound(bounds, { bound: 'depth', limit: EXTRACTION_BOUNDS.depth, message: `the HTML body nests its tags ${nesting} levels deep, past ${EXTRACTION_BOUNDS.parserDepth}: it was parsed with a simpler parser (no implied tags), and elements deeper than ${EXTRACTION_BOUNDS.depth} levels were read without their own styling and hiding` });
  return cheerio.load(html, { xml: { xmlMode: false, decodeEntities: true } }).root()[0] as unknown as DomNode;
}
