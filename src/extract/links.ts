import * as cheerio from 'cheerio';
import { AmbiguousLinkError, LinkNotFoundError } from './errors.ts';
import { normalizeInput, type ExtractSource } from './input.ts';
import { describeLinkFilter, readingOptions, selectLinks, type LinkFilterArg, type LinkOptions } from './link-filter.ts';
import { preferMatches, reasonsFor } from './link-rank.ts';
import { findTextUrls } from './text-urls.ts';
import { hiddenBy, parseCss, visibilityAt, visibleContent, type VisNode } from './visibility.ts';
import type { ExtractedLink } from './types.ts';
import { unwrapTrackingUrl } from './unwrap.ts';

const SKIPPED_SCHEME = /^(?:tel|sms|cid|javascript|vbscript|data|about|file|callto|skype):/i;
const BLOCKS = 'p,li,td,th,div,h1,h2,h3,h4,h5,h6,blockquote,section,article,dd,dt,pre,center,table,body';
const URL_LIKE = /^(?:https?:\/\/|www\.)/i;

/**
 * Undoes HTML escaping that survived into a URL (a body escaped twice, or a
 * text body made from HTML without decoding): `&amp;name=` → `&name=`. Only
 * `&amp;` before a query parameter is touched, which no real URL contains.
 */
export function fixEscapedAmpersands(url: string): string {
  return url.replace(/&(?:amp|#0*38|#x0*26);(?=[\w.%~-]+=)/gi, '&');
}

function collapse(s: string): string {
  return s.replace(/(?:\s|\u00a0|\u200b|\u200c|\u200d|\ufeff)+/g, ' ').trim();
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

interface TextNode { type: string; name?: string; data?: string; attribs?: Record<string, string>; children?: TextNode[] }
const BLOCK_NAMES = new Set([...BLOCKS.split(','), 'br', 'tr', 'ul', 'ol', 'hr']);

/** The visible text of an element with a space at every block or line boundary. */
function spacedText(node: TextNode): string {
  if (node.type === 'text') return node.data ?? '';
  if (node.type !== 'tag' && node.type !== 'root') return '';
  const name = node.name ?? '';
  if (name === 'script' || name === 'style' || name === 'head') return '';
  if (node.attribs && hiddenBy(node.attribs, parseCss(node.attribs['style'] ?? ''))) return '';
  const inner = (node.children ?? []).map(spacedText).join('');
  return BLOCK_NAMES.has(name) ? ` ${inner} ` : inner;
}

interface RawLink {
  raw: string;
  text: string;
  context: string;
  source: 'html' | 'text';
}

function linksFromHtml(html: string): RawLink[] {
  const $ = cheerio.load(html);
  $('script,style,head,template').remove();
  const out: RawLink[] = [];
  $('a[href], area[href]').each((_, el) => {
    const node = el as unknown as VisNode;
    const visibility = visibilityAt(node);
    const shown = visibleContent(node, visibility);
    // A link a reader cannot see is not offered: hidden for good, or all its text zero-sized and no image.
    if (visibility.hidden || (shown.text.trim() === '' && !shown.image && $(el).text().trim() !== '')) return;
    const $el = $(el);
    const raw = fixEscapedAmpersands(($el.attr('href') ?? '').replace(/[\t\n\r]/g, '').trim());
    let text = collapse(shown.text);
    if (text === '') {
      text = collapse($el.find('img[alt]').first().attr('alt') ?? $el.attr('aria-label') ?? $el.attr('title') ?? $el.attr('alt') ?? '');
    }
    let block = $el.parent().closest(BLOCKS);
    const textOfBlock = (b: typeof block): string => collapse(b.toArray().map((n) => spacedText(n as unknown as TextNode)).join(' '));
    let blockText = textOfBlock(block);
    for (let climb = 0; climb < 3 && block.length > 0 && (blockText === text || blockText === '') && !block.is('body'); climb++) {
      const up = block.parent().closest(BLOCKS);
      if (up.length === 0) break;
      const upText = textOfBlock(up);
      if (upText.length > 600) break;
      block = up;
      blockText = upText;
    }
    out.push({ raw, text, context: shortContext(blockText, text), source: 'html' });
  });
  return out;
}

function linksFromText(text: string): RawLink[] {
  return findTextUrls(text).map((u) => ({ raw: fixEscapedAmpersands(u.url), text: u.label, context: shortContext(u.context, u.url.slice(0, 20)), source: 'text' as const }));
}

function buildLinks(raws: RawLink[], baseUrl: string | undefined, options: LinkOptions): ExtractedLink[] {
  const byHref = new Map<string, ExtractedLink>();
  const out: ExtractedLink[] = [];
  for (const r of raws) {
    if (r.raw === '' || r.raw.startsWith('#') || SKIPPED_SCHEME.test(r.raw)) continue;
    const isMailto = /^mailto:/i.test(r.raw);
    if (isMailto && !options.includeMailto) continue;
    let href = r.raw;
    try { href = new URL(r.raw, baseUrl).href; } catch { /* relative without a base: keep as written */ }
    let unwrapped: string[] = [];
    if (options.unwrapTracking !== false) {
      const result = unwrapTrackingUrl(href);
      href = fixEscapedAmpersands(result.url);
      unwrapped = result.wrappers;
    }
    const existing = byHref.get(href);
    if (existing) {
      if (r.text && !existing.texts.includes(r.text)) existing.texts.push(r.text);
      if ((!existing.text || URL_LIKE.test(existing.text)) && r.text && !URL_LIKE.test(r.text)) existing.text = r.text;
      if (!existing.context) existing.context = r.context;
      continue;
    }
    const link: ExtractedLink = { href, originalHref: r.raw, unwrapped, text: r.text, texts: r.text ? [r.text] : [], context: r.context, source: r.source };
    byHref.set(href, link);
    out.push(link);
  }
  return out;
}

function readAll(source: ExtractSource, options: LinkOptions): { links: ExtractedLink[]; bodies: string } {
  const input = normalizeInput(source);
  let links: ExtractedLink[] = [];
  if (input.html !== null) links = buildLinks(linksFromHtml(input.html), input.baseUrl, options);
  if (links.length === 0 && input.text !== null) links = buildLinks(linksFromText(input.text), input.baseUrl, options);
  const bodies = [input.html !== null ? 'an HTML body' : 'no HTML body', input.text !== null ? 'a text body' : 'no text body'].join(', ');
  return { links, bodies };
}

/**
 * Lists a message's links in document order, read with cheerio from the HTML
 * body, or from the plain-text body when there is no HTML or it has no links.
 *
 * HTML entities are decoded, relative hrefs resolved against `baseUrl`,
 * tracking redirects unwrapped offline (`originalHref` keeps the URL as
 * written), and links with the same final href merged into one entry at the
 * position of the first (its `text` is the first real text, `texts` all of
 * them). `mailto:` (unless `includeMailto`), `tel:`, `cid:`, `javascript:`
 * and `#anchor` links are left out, and so are links a reader cannot see
 * (inside `display:none` and the like, or with only zero-sized text; see
 * the visibility rule of `extractOtps`). A string or RegExp filter matches
 * the link texts first, the hrefs only when no text matches. With a filter,
 * each link carries `reasons`: what matched, where (in its text or its URL's
 * first path segment, or only deeper in the URL), and whether it is preferred
 * over other matches or set aside for them (see `findLink`).
 *
 * @example
 * ```ts
 * const links = extractLinks({ html, text }, { host: 'example.com' });
 * for (const { href, text } of links) console.log(text, href);
 * ```
 */
export function extractLinks(source: ExtractSource, filter?: LinkFilterArg): ExtractedLink[] {
  const { links } = readAll(source, readingOptions(filter));
  if (filter === undefined) return links;
  const matches = selectLinks(links, filter);
  const reasons = reasonsFor(matches);
  return matches.map((m) => ({ ...m.link, reasons: reasons.get(m) ?? [] }));
}

/**
 * Returns the one link that matches `filter`, or throws: a
 * {@link LinkNotFoundError} that lists every link of the message when none
 * matches, an {@link AmbiguousLinkError} that lists the matches when several
 * different links match equally well. A text or href filter prefers the link
 * whose visible text, or — when the text is a URL — whose first path segment
 * carries it (`/reset-password/…`) over links where it appears only deeper in
 * the URL (`/revoke/reset-password`).
 *
 * @example
 * ```ts
 * const { href } = findLink({ html, text }, { text: /confirm/i, host: 'example.com' });
 * await page.goto(href);
 * ```
 */
export function findLink(source: ExtractSource, filter?: LinkFilterArg): ExtractedLink {
  const { links, bodies } = readAll(source, readingOptions(filter));
  const matches = selectLinks(links, filter);
  const description = describeLinkFilter(filter);
  if (matches.length === 0) throw new LinkNotFoundError(description, links, bodies);
  const { best, setAside } = preferMatches(matches);
  const only = best[0];
  if (best.length === 1 && only) return only.link;
  throw new AmbiguousLinkError(description, best, setAside);
}
