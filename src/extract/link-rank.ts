/**
 * Which of several links that match a filter carries it best: a link whose
 * visible text carries the filter, or — when its text is a URL — whose first
 * path segment does (`/reset-password/…`), is preferred over one where the
 * filter appears only deeper in the URL (`/revoke/reset-password`). Links
 * that carry it equally well stay ambiguous.
 */
import { matchesPattern, showPattern } from './pattern.ts';
import type { ExtractedLink } from './types.ts';

/**
 * Where a link carries the filter: up `front` (its text, or its URL's first
 * path segment), only `deeper` in its URL, or only as the sentence that a
 * plain-text mention of the site's own address ends (`mention`).
 */
export interface Carried { placement: 'front' | 'deeper' | 'mention'; detail: string }

/**
 * Whether a link is the site's own address written at the end of a sentence
 * of a text body ("a reset was requested for your account on
 * https://site.example"): a URL in the text with no path, query or fragment.
 * Its text is that sentence, which names the action without being its link.
 */
export function siteMention(link: ExtractedLink): boolean {
  if (link.form !== 'text' || link.text === '' || URL_LIKE.test(link.text)) return false;
  try {
    const url = new URL(link.href);
    return (url.pathname === '/' || url.pathname === '') && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

/** How a site mention carries the filter: only through the sentence its address ends. */
export function carriedByMention(link: ExtractedLink, pattern: string | RegExp): Carried {
  return { placement: 'mention', detail: `it is the site's own address (${short(link.href)}) ending a sentence that carries ${showPattern(pattern)}: a mention of the site, not the link to act on` };
}

/** Text written as a URL: with a scheme, `www.`, or a host name followed by a path (`id.example.com/reset/…`). */
const URL_LIKE = /^(?:https?:\/\/|www\.|(?:[a-z0-9-]+\.)+[a-z]{2,}\/)\S*$/i;

function short(s: string, n = 60): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

function decode(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}

/** How `pattern` sits in a URL: in its first path segment (`front`), or only elsewhere. `null` for text that is not a URL. */
function inUrl(url: string, pattern: string | RegExp, subject: 'text' | 'href'): Carried | null {
  let parsed: URL;
  try { parsed = new URL(/^https?:\/\//i.test(url) ? url : `https://${url}`); } catch { return null; }
  const segments = parsed.pathname.split('/');
  const first = decode(segments[1] ?? '');
  const more = segments.length > 2;
  if (first !== '' && [first, `/${first}`, more ? `/${first}/` : `/${first}`].some((s) => matchesPattern(pattern, s))) {
    const whose = subject === 'text' ? 'its text is a URL whose' : 'its href’s';
    return { placement: 'front', detail: `${whose} first path segment (/${short(first, 40)}) carries ${showPattern(pattern)}` };
  }
  const path = decode(parsed.pathname);
  const that = subject === 'text' ? 'its text is a URL that' : 'its href';
  return { placement: 'deeper', detail: `${that} carries ${showPattern(pattern)} only outside its first path segment (${short(path.length > 1 ? path : parsed.href)})` };
}

/** How a link's visible texts carry `pattern`, the best of them; `null` when no text matches. */
export function carriedByText(link: ExtractedLink, pattern: string | RegExp): Carried | null {
  const texts = link.texts.length > 0 ? link.texts : [link.text];
  let best: Carried | null = null;
  for (const t of texts) {
    if (!matchesPattern(pattern, t)) continue;
    const url = URL_LIKE.test(t) ? inUrl(t, pattern, 'text') : null;
    if (!url || url.placement === 'front') return url ?? { placement: 'front', detail: `its text ${JSON.stringify(short(t))} carries ${showPattern(pattern)}` };
    best ??= url;
  }
  return best;
}

/** How a link's href carries `pattern`; `null` when it does not match. */
export function carriedByHref(link: ExtractedLink, pattern: string | RegExp): Carried | null {
  if (!matchesPattern(pattern, link.href)) return null;
  return inUrl(link.href, pattern, 'href') ?? { placement: 'front', detail: `its href carries ${showPattern(pattern)}` };
}

/** A link that matched, what of it matched, and how well it carries the filter (absent for host and predicate filters). */
export interface RankedMatch { link: ExtractedLink; matched: string; carried?: Carried }

/**
 * Splits the matches into the best (every match, when none carries the filter
 * better than another) and those set aside because the filter appears only
 * deeper in their URL while another match carries it up front.
 */
export function preferMatches<M extends RankedMatch>(matches: readonly M[]): { best: M[]; setAside: M[] } {
  const tier = (m: M): number => ({ front: 0, deeper: 1, mention: 2 })[m.carried?.placement ?? 'front'];
  const top = Math.min(...matches.map(tier));
  return { best: matches.filter((m) => tier(m) === top), setAside: matches.filter((m) => tier(m) !== top) };
}

/** The reasons `extractLinks` gives each link that matched a filter: what matched, where, and whether it was preferred or set aside. */
export function reasonsFor<M extends RankedMatch>(matches: readonly M[]): Map<M, string[]> {
  const split = preferMatches(matches);
  const best = new Set(split.best);
  const setAside = new Set(split.setAside);
  const out = new Map<M, string[]>();
  for (const m of matches) {
    const reasons = [m.matched === 'no filter' ? 'no filter' : `${m.matched} matched`];
    if (m.carried) reasons.push(m.carried.detail);
    const where = [...best][0]?.carried?.placement === 'deeper' ? 'in its URL' : 'in its text or first path segment';
    if (setAside.size > 0 && best.has(m)) {
      const kinds = new Set([...setAside].map((o) => o.carried?.placement));
      const weaker = kinds.size > 1 ? 'only deeper in the URL or as a mention of the site' : kinds.has('mention') ? 'only as a mention of the site at the end of a sentence' : 'only deeper in the URL';
      reasons.push(`preferred: it carries the filter ${where}, where ${setAside.size} other match${setAside.size === 1 ? '' : 'es'} carr${setAside.size === 1 ? 'ies' : 'y'} it ${weaker}`);
    }
    if (setAside.has(m)) reasons.push(`set aside: ${best.size === 1 ? 'another match carries' : `${best.size} other matches carry`} the filter ${where}`);
    out.set(m, reasons);
  }
  return out;
}
