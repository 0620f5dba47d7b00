/**
 * Link filters: what `extractLinks` / `findLink` (and `message.links()`,
 * `message.link()`, `toHaveLink`) accept, how a filter is matched, and how it
 * reads in an error message.
 */
import { carriedByHref, carriedByMention, carriedByText, siteMention, type RankedMatch } from './link-rank.ts';
import { matchesPattern, showPattern } from './pattern.ts';
import type { ExtractedLink } from './types.ts';

/**
 * Which links to keep. Every given criterion must hold. Strings match
 * case-insensitively as "contains"; RegExps are tested as given.
 */
export interface LinkFilter {
  /** Anchor text (any of the merged texts, or an image's alt text). */
  text?: string | RegExp;
  /** The final href (after unwrapping tracking redirects). */
  href?: string | RegExp;
  /** Host of the final href: a string matches that host and its subdomains (`example.com` matches `app.example.com`). */
  host?: string | RegExp;
  /** Any other condition on the link. */
  where?: (link: ExtractedLink) => boolean;
}

/** How links are read. */
export interface LinkOptions {
  /**
   * Keep `mailto:` links (with the address as `href`).
   * @defaultValue false
   */
  includeMailto?: boolean;
  /**
   * Unwrap click-tracking and SafeLinks redirects whose target is in the URL
   * (see `unwrapTrackingUrl`). With `false`, `href` is the URL as written.
   * @defaultValue true
   */
  unwrapTracking?: boolean;
}

/** A filter and reading options together. */
export type LinkQuery = LinkFilter & LinkOptions;

/**
 * What `extractLinks` and `findLink` accept as a filter: a {@link LinkQuery};
 * a string or RegExp, matched against the link texts first and against the
 * hrefs only when no text matches; or a predicate.
 */
export type LinkFilterArg = LinkQuery | string | RegExp | ((link: ExtractedLink) => boolean);

/** The reading options inside a filter (only a query object carries them). */
export function readingOptions(filter: LinkFilterArg | undefined): LinkOptions {
  return typeof filter === 'object' && !(filter instanceof RegExp) ? filter : {};
}

/**
 * A link that matched a filter, what of it matched (`'text'`, `'href'`,
 * `'text and host'` …) and, for a text or href filter, how well it carries it
 * (in its text or first path segment, or only deeper in its URL).
 */
export type LinkMatch = RankedMatch;

/**
 * The links that match a filter. A string or RegExp shorthand names a link by
 * what a reader sees: it matches the link texts first, and only when no text
 * matches does it look at the hrefs. A query object matches every criterion
 * it gives (`{ href }` for the href alone); a function is a predicate.
 */
export function selectLinks(links: readonly ExtractedLink[], filter: LinkFilterArg | undefined): LinkMatch[] {
  if (typeof filter === 'string' || filter instanceof RegExp) {
    const byText = links.filter((l) => textMatches(l, filter));
    const byHref = links.filter((l) => !byText.includes(l) && matchesPattern(filter, l.href)).map((link) => withCarried({ link, matched: 'href' }, carriedByHref(link, filter)));
    // The site's address ending a sentence about the action ranks below another link that carries the filter in its text or URL.
    const mentions = byText.filter(siteMention);
    const others = byText.filter((l) => !mentions.includes(l)).map((link) => withCarried({ link, matched: 'text' }, carriedByText(link, filter)));
    if (mentions.length > 0 && (others.length > 0 || byHref.length > 0)) {
      return [...others, ...mentions.map((link) => withCarried({ link, matched: 'text' }, carriedByMention(link, filter))), ...(others.length === 0 ? byHref : [])];
    }
    if (byText.length > 0) return byText.map((link) => withCarried({ link, matched: 'text' }, carriedByText(link, filter)));
    return byHref;
  }
  const q: LinkQuery = typeof filter === 'function' ? { where: filter } : filter ?? {};
  const fields = (['text', 'href', 'host', 'where'] as const).filter((k) => q[k] !== undefined).map((k) => (k === 'where' ? 'the predicate' : k));
  const matched = fields.length === 0 ? 'no filter' : fields.join(' and ');
  const carried = (link: ExtractedLink) => (q.text !== undefined ? carriedByText(link, q.text) : q.href !== undefined ? carriedByHref(link, q.href) : null);
  return links.filter((l) => matchesQuery(l, q)).map((link) => withCarried({ link, matched }, carried(link)));
}

function withCarried(match: LinkMatch, carried: LinkMatch['carried'] | null): LinkMatch {
  return carried ? { ...match, carried } : match;
}

function textMatches(link: ExtractedLink, pattern: string | RegExp): boolean {
  return link.texts.some((t) => matchesPattern(pattern, t)) || (link.texts.length === 0 && matchesPattern(pattern, link.text));
}

function hostMatches(href: string, host: string | RegExp): boolean {
  let hostname: string;
  try { hostname = new URL(href).hostname.toLowerCase(); } catch { return false; }
  if (host instanceof RegExp) return matchesPattern(host, hostname);
  const h = host.toLowerCase().replace(/^\.+|\.+$/g, '');
  return hostname === h || hostname.endsWith(`.${h}`);
}

/** Whether one link satisfies every criterion of the query. */
function matchesQuery(link: ExtractedLink, q: LinkQuery): boolean {
  if (q.text !== undefined && !textMatches(link, q.text)) return false;
  if (q.href !== undefined && !matchesPattern(q.href, link.href)) return false;
  if (q.host !== undefined && !hostMatches(link.href, q.host)) return false;
  if (q.where !== undefined && !q.where(link)) return false;
  return true;
}

function describeField(key: string, value: string | RegExp): string {
  const verb = value instanceof RegExp ? 'matches' : 'contains';
  if (key === 'host' && typeof value === 'string') return `host is ${showPattern(value)} or a subdomain of it`;
  return `${key} ${verb} ${showPattern(value)}`;
}

/**
 * A link filter in words, for error messages and matcher output:
 * `text or href contains "Confirm"`, `text matches /reset/i, host is "acme.example" or a subdomain of it`.
 *
 * @example
 * ```ts
 * describeLinkFilter({ text: /reset/i }); // 'text matches /reset/i'
 * ```
 */
export function describeLinkFilter(filter: LinkFilterArg | undefined): string {
  if (filter === undefined) return 'any link';
  if (typeof filter === 'string' || filter instanceof RegExp) return `text or href ${describeField('text', filter).slice('text '.length)}`;
  if (typeof filter === 'function') return 'a link the predicate accepts';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (key === 'where') parts.push('the `where` predicate accepts it');
    else if (typeof value === 'string' || value instanceof RegExp) parts.push(describeField(key, value));
    else parts.push(`${key}: ${String(value)}`);
  }
  return parts.length > 0 ? parts.join(', ') : 'any link';
}
