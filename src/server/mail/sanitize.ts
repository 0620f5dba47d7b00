/**
 * The email HTML sanitizer: an allowlist walk over parse5's tree.
 *
 * parse5 is the WHATWG HTML parser (the algorithm browsers run), so the tree
 * this module checks is the tree a browser builds from the same bytes; what it
 * emits is parse5's serialization of the checked tree. The output is built so
 * that its tokenization does not depend on where it is parsed: no foreign
 * content (SVG, MathML), no comments, no raw-text element but `<style>`, whose
 * text never holds `<`, and no nesting deep enough for a browser to flatten.
 * Any re-parse therefore yields only allowed elements and attributes, which is
 * what defeats mutation XSS.
 */
import { defaultTreeAdapter, html as parse5Html, parse, serialize } from 'parse5';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { sanitizeDeclarations, sanitizeStylesheet, type CssUrlPolicy } from './sanitize-css.ts';
import { imageUrl, isSafeLink, type SanitizeOptions } from './url-policy.ts';

export type { SanitizeOptions } from './url-policy.ts';

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type TextNode = DefaultTreeAdapterTypes.TextNode;
type Attribute = Element['attrs'][number];

/**
 * Elements kept (in the HTML namespace). Every other element is removed: those
 * of {@link DROPPED_WITH_CONTENT} with everything inside them, the others
 * (forms, buttons, unknown and custom elements, Outlook's `o:p` ...) keeping
 * their content.
 */
export const EMAIL_ALLOWED_TAGS: ReadonlySet<string> = new Set([
  // structure and text
  'div', 'span', 'p', 'br', 'wbr', 'hr', 'center', 'font', 'blockquote', 'pre', 'address',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'section', 'article', 'header', 'footer', 'main', 'nav', 'aside', 'figure', 'figcaption',
  'b', 'strong', 'i', 'em', 'u', 's', 'strike', 'del', 'ins', 'sub', 'sup', 'small', 'big',
  'mark', 'code', 'kbd', 'samp', 'tt', 'var', 'q', 'cite', 'abbr', 'dfn', 'time', 'bdi', 'bdo',
  // lists
  'ul', 'ol', 'li', 'dl', 'dt', 'dd',
  // tables
  'table', 'caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th',
  // media and links
  'img', 'a',
  // stylesheets, with their CSS filtered like inline styles
  'style',
]);

/**
 * Attributes kept (on any allowed element), besides `aria-*`; `role` with them,
 * so that a layout table's `role="presentation"` survives for accessibility
 * audits of the sanitized HTML (the viewer's). `id`, `name` and
 * `data-*` are not, to spare the host page DOM clobbering and script gadgets.
 */
export const EMAIL_ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set([
  'href', 'src', 'alt', 'title', 'style', 'class', 'dir', 'lang', 'role',
  'align', 'valign', 'bgcolor', 'width', 'height', 'border', 'cellpadding', 'cellspacing',
  'colspan', 'rowspan', 'span', 'scope', 'headers', 'abbr', 'nowrap', 'background',
  'color', 'face', 'size', 'hspace', 'vspace', 'start', 'type', 'reversed', 'datetime',
]);

/** `aria-*` attributes, with a plain name. */
export const ARIA_ATTRIBUTE = /^aria-[a-z0-9-]+$/;

/** Attributes the sanitizer itself sets on links. */
export const LINK_ATTRIBUTES: Readonly<Record<string, string>> = { target: '_blank', rel: 'noopener noreferrer' };

/**
 * Elements removed with everything inside them: script and raw-text elements,
 * frames and plugins, templates, head-only elements, media with fallback content.
 */
const DROPPED_WITH_CONTENT = new Set([
  'script', 'noscript', 'template', 'iframe', 'frame', 'frameset', 'noframes', 'noembed', 'object', 'embed', 'applet',
  'title', 'xmp', 'plaintext', 'audio', 'video', 'head', 'base', 'meta', 'link',
]);

/**
 * Deepest element nesting walked; deeper elements give way to their text.
 * Browsers flatten trees past a depth of their own (Chromium: 512), which would
 * parse the output differently from the tree checked here; and the walk's
 * recursion stays bounded.
 */
const MAX_DEPTH = 256;

/** How many extra passes may settle an output whose structure would re-parse differently. */
const MAX_SETTLING_PASSES = 4;

const HTML_NS = parse5Html.NS.HTML;

/** The state of one pass: the caller's options, and what the pass did. */
interface Pass {
  urlPolicy: CssUrlPolicy;
  options: SanitizeOptions;
  /** Style attributes already sanitized in this call (emails repeat them row after row). */
  styles: Map<string, string>;
  /** Set when the output may read back otherwise (an unwrapped element with element children, a link in a link): the caller sanitizes it again. */
  unsettled: boolean;
}

const isElement = (node: ChildNode): node is Element => 'tagName' in node;
const isText = (node: ChildNode): node is TextNode => node.nodeName === '#text';

function appendText(out: ChildNode[], parent: ParentNode, value: string): void {
  if (value === '') return;
  const last = out[out.length - 1];
  if (last !== undefined && isText(last)) last.value += value;
  else out.push({ nodeName: '#text', value, parentNode: parent } satisfies TextNode);
}

/** The text of a subtree, without the content of elements dropped with it; iterative, for any depth. */
function textOf(root: Element): string {
  let text = '';
  const stack: ChildNode[] = [...root.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) text += node.value;
    else if (isElement(node) && node.namespaceURI === HTML_NS && !DROPPED_WITH_CONTENT.has(node.tagName) && node.tagName !== 'style') {
      for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
    }
  }
  return text;
}

/** Whether `node` is a `tag` element or inside one (following the cleaned tree's parents). */
function insideTag(node: ParentNode | null, tag: string): boolean {
  for (let at: ParentNode | null = node; at !== null; at = 'parentNode' in at ? (at.parentNode as ParentNode | null) : null) {
    if ('tagName' in at && at.tagName === tag) return true;
  }
  return false;
}

/** Appends to `out` what is kept of `nodes`, re-parented to `parent`. Elements are cleaned in place. */
function cleanNodes(nodes: ChildNode[], parent: ParentNode, depth: number, pass: Pass, out: ChildNode[]): void {
  for (const node of nodes) {
    if (isText(node)) {
      appendText(out, parent, node.value);
      continue;
    }
    // Comments (Outlook's conditional ones included) carry nothing for a reader and are a classic mXSS carrier.
    if (!isElement(node)) continue;
    // SVG and MathML go with their content: foreign content parses by other rules.
    if (node.namespaceURI !== HTML_NS || DROPPED_WITH_CONTENT.has(node.tagName)) continue;
    if (depth >= MAX_DEPTH) {
      appendText(out, parent, textOf(node));
      continue;
    }
    const tag = node.tagName;
    if (!EMAIL_ALLOWED_TAGS.has(tag)) {
      if (node.childNodes.some(isElement)) pass.unsettled = true;
      // Unwrapped elements count towards the depth too, which bounds this recursion.
      cleanNodes(node.childNodes, parent, depth + 1, pass, out);
      continue;
    }
    // The parser can nest a link in a link (adoption around a table), or a paragraph in a paragraph (a <p>
    // fostered out of a table inside one); read back, the inner one closes the outer.
    if ((tag === 'a' || tag === 'p') && insideTag(parent, tag)) pass.unsettled = true;
    node.parentNode = parent;
    node.attrs = cleanAttributes(node, pass);
    if (tag === 'style') {
      const css = sanitizeStylesheet(textOf(node), pass.urlPolicy);
      if (css.trim() === '') continue;
      node.childNodes = [{ nodeName: '#text', value: css, parentNode: node } satisfies TextNode];
      out.push(node);
      continue;
    }
    const children: ChildNode[] = [];
    cleanNodes(node.childNodes, node, depth + 1, pass, children);
    // The parser drops a newline right after <pre>; the serializer does not put one back.
    const first = children[0];
    if (tag === 'pre' && first !== undefined && isText(first) && first.value.startsWith('\n')) first.value = `\n${first.value}`;
    node.childNodes = children;
    out.push(node);
  }
}

function cleanAttributes(element: Element, pass: Pass): Attribute[] {
  const tag = element.tagName;
  const kept: Attribute[] = [];
  let hasHref = false;
  for (const attribute of element.attrs) {
    const name = attribute.name;
    if (attribute.namespace !== undefined && attribute.namespace !== '') continue;
    if (!EMAIL_ALLOWED_ATTRIBUTES.has(name) && !ARIA_ATTRIBUTE.test(name)) continue;
    let value = attribute.value;
    if (name === 'style') {
      let css = pass.styles.get(value);
      if (css === undefined) {
        css = sanitizeDeclarations(value, pass.urlPolicy);
        pass.styles.set(value, css);
      }
      if (css === '') continue;
      value = css;
    } else if (name === 'href') {
      // Links keep their href exactly as written, or lose it.
      if (tag !== 'a' || !isSafeLink(value)) continue;
      hasHref = true;
    } else if (name === 'src' || name === 'background') {
      const url = name === 'src' && tag !== 'img' ? null : imageUrl(value, pass.options);
      if (url === null) continue;
      value = url;
    }
    kept.push({ name, value });
  }
  if (hasHref) for (const [name, value] of Object.entries(LINK_ATTRIBUTES)) kept.push({ name, value });
  return kept;
}

const HTML_WHITESPACE = /^[ \t\n\f\r]+/;

/**
 * One pass: parse as a document, keep the head's `<style>` blocks and the
 * body's content, and order them the way a parser would read them back.
 */
function sanitizePass(html: string, options: SanitizeOptions): { html: string; unsettled: boolean } {
  const pass: Pass = { options, urlPolicy: (url) => imageUrl(url, options), styles: new Map(), unsettled: false };
  const document = parse(html);
  const fragment = defaultTreeAdapter.createDocumentFragment();
  const root = document.childNodes.find(isElement);
  const head = root?.childNodes.find((node): node is Element => isElement(node) && node.tagName === 'head');
  const body = root?.childNodes.find((node): node is Element => isElement(node) && node.tagName === 'body');

  const styles: ChildNode[] = [];
  cleanNodes(head?.childNodes.filter((node) => isElement(node) && node.tagName === 'style') ?? [], fragment, 1, pass, styles);
  let content: ChildNode[] = [];
  if (body !== undefined) cleanNodes(body.childNodes, fragment, 1, pass, content);

  // The body's own look (background colour, font) would be lost with the body element.
  const bgcolor = body?.attrs.find((a) => a.name === 'bgcolor')?.value ?? '';
  const bodyStyle = [bgcolor !== '' ? `background-color:${bgcolor}` : '', body?.attrs.find((a) => a.name === 'style')?.value ?? ''].filter((part) => part !== '').join('; ');
  const hasContent = content.some((node) => !isText(node) || node.value.trim() !== '');
  if (bodyStyle !== '' && hasContent) {
    const css = sanitizeDeclarations(bodyStyle, pass.urlPolicy);
    if (css !== '') {
      const wrapper = defaultTreeAdapter.createElement('div', HTML_NS, [{ name: 'style', value: css }]);
      wrapper.parentNode = fragment;
      for (const node of content) node.parentNode = wrapper;
      wrapper.childNodes = content;
      content = [wrapper];
    }
  }

  // Read back as a document, leading style blocks go to the head and leading
  // whitespace is dropped: emit them that way already, so that a second pass
  // gives the same result.
  let start = 0;
  for (; start < content.length; start++) {
    const node = content[start]!;
    if (isText(node)) {
      node.value = node.value.replace(HTML_WHITESPACE, '');
      if (node.value !== '') break;
    } else if (isElement(node) && node.tagName === 'style') {
      styles.push(node);
    } else {
      break;
    }
  }
  fragment.childNodes = [...styles, ...content.slice(start)];
  return { html: serialize(fragment), unsettled: pass.unsettled };
}

/**
 * Sanitized HTML for an email body (a fragment or a whole document): pure,
 * synchronous, and idempotent (`sanitizeHtml(sanitizeHtml(x)) === sanitizeHtml(x)`).
 *
 * The policy, made for email:
 * - kept: text, headings, lists, tables with their email attributes (`align`,
 *   `valign`, `bgcolor`, `width`, `height`, `border`, `cellpadding`,
 *   `cellspacing`, `colspan`, `rowspan`), `font`, `center`, images and links;
 *   inline styles and `<style>` blocks with their CSS filtered (no
 *   `expression()`, `behavior`, `-moz-binding`, `@import`, script or
 *   non-image `data:` URLs, `position` other than static and relative);
 * - images: `https:` and `http:` (as mail clients do), `cid:` rewritten through
 *   `resolveCid` (unresolvable: the `src` is removed and the `alt` text stays),
 *   raster `data:image/*` (not SVG); relative sources are removed;
 * - links keep their exact `href` (http, https, mailto, tel, sms or relative)
 *   and text, and gain `target="_blank"` and `rel="noopener noreferrer"`;
 * - removed: scripts, event handlers, forms and their controls (their text
 *   stays), frames, object/embed/applet, base, meta, link, `srcset`, SVG and
 *   MathML, comments, `id`/`name`/`data-*` attributes, and any `javascript:`,
 *   `vbscript:` or `data:` URL outside images.
 *
 * @returns the head's `<style>` blocks, then the body's content (wrapped in a
 * `div` carrying the body's background and style, if it had any); an empty
 * string when nothing is left.
 * @example
 * const html = sanitizeHtml(rawHtml, {
 *   resolveCid: (cid) => attachmentsByCid.get(cid)?.url ?? null,
 * });
 */
export function sanitizeHtml(html: string, options: SanitizeOptions): string {
  let result = sanitizePass(html, options);
  // An unwrapped element can leave its children where the parser would not
  // have put them (a <div> in a <p>, once a <button> between them is gone):
  // sanitize the output again until it reads back as itself.
  for (let i = 0; result.unsettled && i < MAX_SETTLING_PASSES; i++) {
    const again = sanitizePass(result.html, options);
    if (again.html === result.html) break;
    result = again;
  }
  return result.html;
}

/**
 * Turns untrusted email HTML into a fragment that is safe to assign to
 * `innerHTML` or to an iframe's `srcdoc`. A thin asynchronous handle over
 * {@link sanitizeHtml}, for callers that own a sanitizer's lifecycle.
 */
export interface Sanitizer {
  /**
   * Sanitized HTML for an email body; see {@link sanitizeHtml}.
   * @throws Error when the sanitizer was closed.
   */
  sanitize(html: string, options: SanitizeOptions): Promise<string>;
  /** Ends the sanitizer; later calls to `sanitize` reject. */
  close(): void;
}

/**
 * Creates a sanitizer: {@link sanitizeHtml} behind a handle with a lifecycle.
 *
 * @example
 * const sanitizer = createSanitizer();
 * const html = await sanitizer.sanitize(rawHtml, { resolveCid: () => null });
 * sanitizer.close();
 */
export function createSanitizer(): Sanitizer {
  let closed = false;
  return {
    sanitize(html, options) {
      if (closed) return Promise.reject(new Error('inboxkit sanitizer: sanitize() was called after close(); create a new sanitizer with createSanitizer().'));
      try {
        return Promise.resolve(sanitizeHtml(html, options));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    close() {
      closed = true;
    },
  };
}
