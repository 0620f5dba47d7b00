/**
 * The email HTML sanitizer: DOMPurify over jsdom with an allowlist made for email.
 *
 * DOMPurify over jsdom parses like a browser (parse5), so what it checks is what a
 * browser will build, which is what defeats mutation XSS. The jsdom window and the
 * DOMPurify instance belong to one {@link Sanitizer} and are created on its first
 * use, so that importing this module (and starting the server) stays cheap.
 */
import type { Config, DOMPurify, UponSanitizeAttributeHookEvent } from 'dompurify';
import type { JSDOM } from 'jsdom';
import { sanitizeDeclarations, sanitizeStylesheet } from './sanitize-css.ts';

/** Per-call options of {@link Sanitizer.sanitize}. */
export interface SanitizeOptions {
  /**
   * Maps a `cid:` reference (without the `cid:` prefix, percent-decoded) to a URL a
   * page can load, or `null` when the message has no such part (the reference is
   * then removed).
   */
  resolveCid(contentId: string): string | null;
}

/**
 * Turns untrusted email HTML into a fragment that is safe to assign to
 * `innerHTML` or to an iframe's `srcdoc`.
 *
 * Not safe for concurrent use across threads, but calls may overlap freely in
 * one event loop: each call runs synchronously once the DOM is loaded.
 */
export interface Sanitizer {
  /**
   * Sanitized HTML for an email body (a fragment or a whole document).
   *
   * @returns the body's sanitized content, preceded by the sanitized `<style>`
   * blocks of the document; an empty string when nothing is left.
   * @throws Error when the sanitizer was closed.
   */
  sanitize(html: string, options: SanitizeOptions): Promise<string>;
  /** Releases the DOM (jsdom window). Later calls to `sanitize` reject. */
  close(): void;
}

/**
 * Elements kept. Everything else is removed, keeping its text content (except for
 * script, style outside this list, iframe, svg, math, template and the like, whose
 * content is dropped with them).
 */
const EMAIL_ALLOWED_TAGS: readonly string[] = [
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
];

/** Attributes kept (on any allowed element). `id`, `name` and `data-*` are not, to spare the host page DOM clobbering and script gadgets. */
const EMAIL_ALLOWED_ATTRIBUTES: readonly string[] = [
  'href', 'src', 'alt', 'title', 'style', 'class', 'dir', 'lang',
  'align', 'valign', 'bgcolor', 'width', 'height', 'border', 'cellpadding', 'cellspacing',
  'colspan', 'rowspan', 'span', 'scope', 'headers', 'abbr', 'nowrap', 'background',
  'color', 'face', 'size', 'hspace', 'vspace', 'start', 'type', 'reversed', 'datetime',
];

const LINK_SCHEMES = new Set(['http', 'https', 'mailto', 'tel', 'sms']);
const IMAGE_SCHEMES = new Set(['http', 'https']);
/** Raster image types a `data:` URL may carry; SVG is a document and is refused. */
const DATA_IMAGE = /^data:image\/(?:png|jpeg|jpg|gif|webp|bmp|avif|x-icon|vnd\.microsoft\.icon)[;,]/i;

/**
 * The scheme a browser would see: leading C0 controls and spaces stripped,
 * tabs and newlines removed anywhere (WHATWG URL parsing), lower-cased.
 */
function schemeOf(url: string): string | null {
  // eslint-disable-next-line no-control-regex
  const cleaned = url.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, '');
  return /^([a-z][a-z0-9+.-]*):/i.exec(cleaned)?.[1]?.toLowerCase() ?? null;
}

/** The URL for a `cid:` reference through the caller's resolver, or null. */
function resolveCidUrl(url: string, options: SanitizeOptions): string | null {
  const raw = url.replace(/^\s+/, '').slice('cid:'.length).replace(/^<(.*)>$/, '$1');
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {}
  const resolved = options.resolveCid(decoded) ?? (decoded !== raw ? options.resolveCid(raw) : null);
  if (resolved === null) return null;
  // The resolver is ours, but its answer still has to be something an <img> may load.
  const scheme = schemeOf(resolved);
  if (scheme === null || IMAGE_SCHEMES.has(scheme) || DATA_IMAGE.test(resolved.trim())) return resolved;
  return null;
}

/**
 * What an image source (an `<img src>`, a `background` attribute or a CSS
 * `url()`) becomes: http(s) kept, `cid:` resolved, raster `data:image/*` kept,
 * anything else (relative URLs included, which would hit the host page's origin)
 * refused with `null`.
 */
function imageUrl(url: string, options: SanitizeOptions): string | null {
  const scheme = schemeOf(url);
  if (scheme === 'cid') return resolveCidUrl(url, options);
  if (scheme !== null && IMAGE_SCHEMES.has(scheme)) return url;
  if (scheme === 'data' && DATA_IMAGE.test(url.trim())) return url;
  return null;
}

/** Links: web, mail and phone URLs and relative ones; never script or data. */
function isSafeLink(url: string): boolean {
  const scheme = schemeOf(url);
  return scheme === null || LINK_SCHEMES.has(scheme);
}

const PURIFY_CONFIG = {
  ALLOWED_TAGS: [...EMAIL_ALLOWED_TAGS],
  ALLOWED_ATTR: [...EMAIL_ALLOWED_ATTRIBUTES],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: true,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  WHOLE_DOCUMENT: true,
  RETURN_DOM: true,
  KEEP_CONTENT: true,
  SANITIZE_DOM: true,
} satisfies Config;

interface Engine {
  dom: JSDOM;
  purify: DOMPurify;
  /** The options of the call in progress; sanitize() is synchronous once the engine exists. */
  current: { options: SanitizeOptions | null };
}

async function createEngine(): Promise<Engine> {
  const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
  const dom = new JSDOM('<!DOCTYPE html><html><head></head><body></body></html>');
  const purify = createDOMPurify(dom.window as unknown as Parameters<typeof createDOMPurify>[0]);
  const current: Engine['current'] = { options: null };
  const options = (): SanitizeOptions => {
    if (current.options === null) throw new Error('inboxkit sanitizer: a DOMPurify hook ran outside sanitize(); this is a bug in inboxkit.');
    return current.options;
  };

  purify.addHook('uponSanitizeElement', (node, event) => {
    if (event.tagName === 'style' && node.textContent !== null) {
      node.textContent = sanitizeStylesheet(node.textContent, (url) => imageUrl(url, options()));
    }
  });

  purify.addHook('uponSanitizeAttribute', (node: Element, event: UponSanitizeAttributeHookEvent) => {
    const name = event.attrName;
    const value = event.attrValue;
    if (name === 'style') {
      const css = sanitizeDeclarations(value, (url) => imageUrl(url, options()));
      if (css === '') event.keepAttr = false;
      else event.attrValue = css;
    } else if (name === 'href') {
      // Links keep their href exactly as written, or lose it.
      if (node.nodeName !== 'A' || !isSafeLink(value)) event.keepAttr = false;
    } else if (name === 'src' || name === 'background') {
      const url = name === 'src' && node.nodeName !== 'IMG' ? null : imageUrl(value, options());
      if (url === null) event.keepAttr = false;
      else event.attrValue = url;
    }
  });

  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A' && (node as Element).hasAttribute('href')) {
      (node as Element).setAttribute('target', '_blank');
      (node as Element).setAttribute('rel', 'noopener noreferrer');
    }
  });

  return { dom, purify, current };
}

/**
 * Sanitizes with the engine: the document is purified whole, then its head's
 * `<style>` blocks and its body's content become one fragment.
 */
function run(engine: Engine, html: string, options: SanitizeOptions): string {
  engine.current.options = options;
  let root: Node;
  try {
    root = engine.purify.sanitize(html, PURIFY_CONFIG);
  } finally {
    engine.current.options = null;
  }
  const doc = root as Element;
  const styles = [...doc.querySelectorAll('head > style')]
    .filter((style) => (style.textContent ?? '').trim() !== '')
    .map((style) => style.outerHTML);
  const body = doc.querySelector('body');
  if (body === null) return styles.join('');
  removeComments(body);
  for (const style of body.querySelectorAll('style')) {
    if ((style.textContent ?? '').trim() === '') style.remove();
  }
  let content = body.innerHTML;
  // The body's own look (background colour, font) would be lost with the body element.
  const bodyStyle = [body.getAttribute('bgcolor') ? `background-color:${body.getAttribute('bgcolor')}` : '', body.getAttribute('style') ?? '']
    .filter((part) => part !== '')
    .join('; ');
  if (bodyStyle !== '' && content.trim() !== '') {
    const wrapper = body.ownerDocument.createElement('div');
    const css = sanitizeDeclarations(bodyStyle, (url) => imageUrl(url, options));
    if (css !== '') {
      wrapper.setAttribute('style', css);
      while (body.firstChild) wrapper.appendChild(body.firstChild);
      content = wrapper.outerHTML;
    }
  }
  return styles.join('') + content;
}

/** Comments carry nothing for a reader (Outlook's conditional comments included) and are a classic mXSS carrier. */
function removeComments(root: Element): void {
  const walker = root.ownerDocument.createTreeWalker(root, 128 /* NodeFilter.SHOW_COMMENT */);
  const comments: Node[] = [];
  while (walker.nextNode()) comments.push(walker.currentNode);
  for (const comment of comments) comment.parentNode?.removeChild(comment);
}

/**
 * Creates a sanitizer. Nothing is loaded until the first `sanitize()` call,
 * which imports jsdom and DOMPurify and builds one window for this instance.
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
 * - removed: scripts, event handlers, forms and their controls, frames,
 *   object/embed/applet, base, meta, link, `srcset`, SVG and MathML, comments,
 *   `id`/`name`/`data-*` attributes, and any `javascript:`, `vbscript:` or
 *   `data:` URL outside images.
 *
 * @example
 * const sanitizer = createSanitizer();
 * const html = await sanitizer.sanitize(rawHtml, {
 *   resolveCid: (cid) => attachmentsByCid.get(cid)?.url ?? null,
 * });
 * sanitizer.close();
 */
export function createSanitizer(): Sanitizer {
  let engine: Promise<Engine> | null = null;
  let closed = false;
  const closedError = () => new Error('inboxkit sanitizer: sanitize() was called after close(); create a new sanitizer with createSanitizer().');

  return {
    async sanitize(html, options) {
      if (closed) throw closedError();
      engine ??= createEngine().catch((error: unknown) => {
        engine = null; // let a later call try again
        throw error;
      });
      const ready = await engine;
      // jsdom holds each parsed document through a WeakRef, which V8 keeps alive
      // until the current job ends; a caller awaiting sanitize() in a loop never
      // ends its job, and would keep every document (about 1 MB per 20 KB email).
      // Running each call in its own macrotask lets them go.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (closed) throw closedError();
      return run(ready, html, options);
    },
    close() {
      if (closed) return;
      closed = true;
      // A load still in progress closes its window when it lands.
      void engine?.then((ready) => ready.dom.window.close(), () => {});
      engine = null;
    },
  };
}
