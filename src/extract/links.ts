import { AmbiguousLinkError, LinkNotFoundError } from './errors.ts';
import { EXTRACTION_BOUNDS, noteBound, type ExtractionBound } from './dom.ts';
import { fixEscapedAmpersands, linksFromHtml, shortContext, type RawLink } from './html-links.ts';
import { normalizeInput, type ExtractSource } from './input.ts';
import { describeLinkFilter, readingOptions, selectLinks, type LinkFilterArg, type LinkOptions } from './link-filter.ts';
import { preferMatches, reasonsFor } from './link-rank.ts';
import { findTextUrls } from './text-urls.ts';
import type { ExtractedLink, ExtractedLinks } from './types.ts';
import { unwrapTrackingUrl } from './unwrap.ts';

export { fixEscapedAmpersands, shortContext } from './html-links.ts';

const SKIPPED_SCHEME = /^(?:tel|sms|cid|javascript|vbscript|data|about|file|callto|skype):/i;
const URL_LIKE = /^(?:https?:\/\/|www\.)/i;

function linksFromText(text: string, bounds: ExtractionBound[]): RawLink[] {
  const { urls, more } = findTextUrls(text);
  if (more > 0) noteBound(bounds, { bound: 'links', limit: EXTRACTION_BOUNDS.links, message: `only the first ${EXTRACTION_BOUNDS.links} links of the text body were read (it has ${urls.length + more})` });
  return urls.map((u) => ({ raw: fixEscapedAmpersands(u.url), text: u.label, context: shortContext(u.context, u.url.slice(0, 20)), source: 'text' as const, form: 'text' as const }));
}

function buildLinks(raws: RawLink[], baseUrl: string | undefined, options: LinkOptions): ExtractedLink[] {
  const byHref = new Map<string, { link: ExtractedLink; texts: Set<string> }>();
  const out: ExtractedLink[] = [];
  for (const r of raws) {
    if (r.raw === '' || r.raw.startsWith('#') || SKIPPED_SCHEME.test(r.raw)) continue;
    const isMailto = /^mailto:/i.test(r.raw);
    if (isMailto && !options.includeMailto) continue;
    let href = r.raw;
    try { href = new URL(r.raw, baseUrl).href; } catch { /* relative without a base: keep as written */ }
    let unwrapped: string[] = [];
    let trackedBy: string | undefined;
    if (options.unwrapTracking !== false) {
      const result = unwrapTrackingUrl(href);
      href = fixEscapedAmpersands(result.url);
      unwrapped = result.wrappers;
      trackedBy = result.trackedBy;
    }
    const seen = byHref.get(href);
    if (seen) {
      const existing = seen.link;
      if (r.text && !seen.texts.has(r.text)) { seen.texts.add(r.text); existing.texts.push(r.text); }
      if ((!existing.text || URL_LIKE.test(existing.text)) && r.text && !URL_LIKE.test(r.text)) existing.text = r.text;
      if (!existing.context) existing.context = r.context;
      continue;
    }
    const link: ExtractedLink = { href, originalHref: r.raw, unwrapped, ...(trackedBy ? { trackedBy } : {}), text: r.text, texts: r.text ? [r.text] : [], context: r.context, source: r.source, form: r.form };
    byHref.set(href, { link, texts: new Set(link.texts) });
    out.push(link);
  }
  return out;
}

function readAll(source: ExtractSource, options: LinkOptions): { links: ExtractedLink[]; bodies: string; bounds: ExtractionBound[] } {
  const input = normalizeInput(source);
  let links: ExtractedLink[] = [];
  let bounds: ExtractionBound[] = [];
  if (input.html !== null) {
    const html = linksFromHtml(input.html);
    links = buildLinks(html.links, input.baseUrl, options);
    bounds = html.bounds;
  }
  if (links.length === 0 && input.text !== null) {
    bounds = [];
    links = buildLinks(linksFromText(input.text, bounds), input.baseUrl, options);
  }
  const bodies = [input.html !== null ? 'an HTML body' : 'no HTML body', input.text !== null ? 'a text body' : 'no text body'].join(', ');
  return { links, bodies, bounds };
}

function withBounds(links: ExtractedLink[], bounds: ExtractionBound[]): ExtractedLinks {
  return Object.defineProperty(links, 'bounds', { value: bounds, enumerable: false }) as ExtractedLinks;
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
export function extractLinks(source: ExtractSource, filter?: LinkFilterArg): ExtractedLinks {
  const { links, bounds } = readAll(source, readingOptions(filter));
  if (filter === undefined) return withBounds(links, bounds);
  const matches = selectLinks(links, filter);
  const reasons = reasonsFor(matches);
  return withBounds(matches.map((m) => ({ ...m.link, reasons: [...reasons.get(m) ?? [], ...trackingReasons(m.link)] })), bounds);
}

/** What a link's reasons say about click tracking: unwrapped offline, or kept because the provider holds the target. */
function trackingReasons(link: ExtractedLink): string[] {
  const out: string[] = [];
  if (link.unwrapped.length > 0) out.push(`unwrapped offline from ${link.unwrapped.join(' → ')} click tracking (originalHref keeps the tracked URL)`);
  if (link.trackedBy) out.push(`tracked by ${link.trackedBy}: the target is kept at ${link.trackedBy} and cannot be read offline, so href is the tracked URL; in a Playwright test, await link.resolve() follows its redirect`);
  if (link.form === 'text') out.push('written as a URL in the text, not as a link');
  return out;
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
  const { links, bodies, bounds } = readAll(source, readingOptions(filter));
  const matches = selectLinks(links, filter);
  const description = describeLinkFilter(filter);
  if (matches.length === 0) throw new LinkNotFoundError(description, links, bodies, bounds);
  const { best, setAside } = preferMatches(matches);
  const only = best[0];
  if (best.length === 1 && only) return { ...only.link, reasons: [...reasonsFor(matches).get(only) ?? [], ...trackingReasons(only.link)] };
  throw new AmbiguousLinkError(description, best, setAside);
}
