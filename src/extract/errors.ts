import { InboxkitError } from '../errors/inboxkit-error.ts';
import type { LinkMatch } from './link-filter.ts';
import type { ExtractionBound } from './dom.ts';
import type { NearMiss } from './otp-explain.ts';
import type { ExtractedLink, OtpCandidate, RejectedOtp } from './types.ts';

/**
 * Root of the errors thrown by link and one-time-code extraction; an
 * {@link InboxkitError} like every error inboxkit throws.
 */
export class ExtractionError extends InboxkitError {
  override name = 'ExtractionError';
}

/** Formats links as `  1. "text" → href` lines for error messages, each with what matched when `matched` is given. */
export function formatLinkList(links: readonly ExtractedLink[], max = 20, matched?: readonly string[]): string {
  if (links.length === 0) return '  (none)';
  const lines = links.slice(0, max).map((l, i) => `  ${i + 1}. ${l.text ? JSON.stringify(truncate(l.text, 60)) : '(no text)'} → ${truncate(l.href, 120)}${matched?.[i] ? ` (${matched[i]} matched)` : ''}${l.href !== l.originalHref && l.unwrapped.length > 0 ? ` (unwrapped from ${l.unwrapped.join(' → ')})` : ''}`);
  if (links.length > max) lines.push(`  … and ${links.length - max} more`);
  return lines.join('\n');
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** Thrown by `findLink` when no link matches the filter. `links` holds every link the message has. */
export class LinkNotFoundError extends ExtractionError {
  override name = 'LinkNotFoundError';
  /** Every link of the message (before filtering). */
  readonly links: ExtractedLink[];
  /** A readable description of the filter that matched nothing. */
  readonly filter: string;
  /** The bounds on what is read that applied (empty for ordinary mail). */
  readonly bounds: ExtractionBound[];
  constructor(filter: string, links: ExtractedLink[], bodies: string, bounds: ExtractionBound[] = []) {
    const unread = bounds.length > 0 ? `\nNot everything was read: ${bounds.map((b) => b.message).join('; ')}.` : '';
    super(
      links.length === 0
        ? `No link matched the filter (${filter}): the message has no links at all (${bodies}).${unread} Check that you waited for the right message, or read its text instead.`
        : `No link matched the filter (${filter}). The message has ${links.length} link${links.length === 1 ? '' : 's'}:\n${formatLinkList(links)}${unread}\nAdjust the filter (text, href, host or where) to match one of them.`,
    );
    this.links = links;
    this.filter = filter;
    this.bounds = bounds;
  }
}

/**
 * Thrown by `findLink` when more than one distinct link matches the filter.
 * The message lists each match and what of it matched (its text or its href).
 */
export class AmbiguousLinkError extends ExtractionError {
  override name = 'AmbiguousLinkError';
  /** The links that matched. */
  readonly matches: ExtractedLink[];
  /** A readable description of the filter. */
  readonly filter: string;
  /** Links that also matched but were set aside: the filter appears only deeper in their URL. */
  readonly setAside: ExtractedLink[];
  constructor(filter: string, matches: readonly LinkMatch[], setAside: readonly LinkMatch[] = []) {
    const links = matches.map((m) => m.link);
    const tie = matches.some((m) => m.carried) ? ', and they carry it equally well (in the text, or in the first path segment of a URL)' : '';
    const aside = setAside.length > 0
      ? `\nAlso matched, but set aside because the filter appears only deeper in their URL:\n${setAside.map((m) => `  - ${m.link.href}${m.carried ? ` (${m.carried.detail})` : ''}`).join('\n')}`
      : '';
    super(`${matches.length} different links matched the filter (${filter})${tie}; expected exactly one:\n${formatLinkList(links, 20, matches.map((m) => m.matched))}${aside}\nNarrow the filter (add href, host or a stricter text) or use links() to get them all with their reasons.`);
    this.matches = links;
    this.setAside = setAside.map((m) => m.link);
    this.filter = filter;
  }
}

/** Thrown by `extractOtp` when no candidate is convincing enough. */
export class OtpNotFoundError extends ExtractionError {
  override name = 'OtpNotFoundError';
  /** Candidates that were considered but scored too low, best first. */
  readonly candidates: OtpCandidate[];
  /** Numbers that were ruled out, with the reason. */
  readonly rejected: RejectedOtp[];
  /** The bounds on what is read that applied (empty for ordinary mail). */
  readonly bounds: ExtractionBound[];
  /**
   * Strings right after a code word that no built-in shape reads (too short,
   * too long, another layout), each with the `{ length }` or `{ pattern }`
   * that would read it; the closest to a code come first in the message.
   */
  readonly closest: NearMiss[];
  constructor(detail: string, candidates: OtpCandidate[], rejected: RejectedOtp[], bounds: ExtractionBound[] = [], closest: NearMiss[] = []) {
    const parts = [`No one-time code found ${detail}.`];
    if (closest.length > 0) parts.push(`Closest to a code, but no built-in shape:\n${closest.map((m) => `  - ${m.raw} (${m.reason})`).join('\n')}`);
    if (candidates.length > 0) {
      parts.push(`Too weak (no code word nearby and no emphasis):\n${candidates.slice(0, 10).map((c) => `  - ${c.raw} (score ${c.score}${c.reasons.length ? `: ${c.reasons.join(', ')}` : ''})`).join('\n')}`);
    }
    if (rejected.length > 0) {
      parts.push(`Ruled out:\n${rejected.slice(0, 15).map((r) => `  - ${r.raw}: ${r.reason}`).join('\n')}${rejected.length > 15 ? `\n  … and ${rejected.length - 15} more` : ''}`);
    }
    if (candidates.length === 0 && rejected.length === 0 && closest.length === 0) parts.push('Nothing in the message looked like a code (4–10 digits, letters and digits, or letters next to a code word).');
    if (bounds.length > 0) parts.push(`Not everything was read: ${bounds.map((b) => b.message).join('; ')}.`);
    parts.push('If the code has another shape, pass { pattern } or { length }; to see the ranking, call otps() / extractOtps().');
    super(parts.join('\n'));
    this.candidates = candidates;
    this.rejected = rejected;
    this.bounds = bounds;
    this.closest = closest;
  }
}
