import type { ExtractionBound } from './dom.ts';

/** Where a link or a code was found. */
export type ExtractedFrom = 'html' | 'text' | 'subject';

/** One link of a message, as returned by `extractLinks`. */
export interface ExtractedLink {
  /**
   * The URL to follow: entities decoded, resolved against `baseUrl`, and with
   * offline-recoverable tracking redirects unwrapped.
   */
  href: string;
  /** The href exactly as the mail wrote it (entities decoded, whitespace removed). */
  originalHref: string;
  /** Names of the tracking wrappers removed, outermost first (e.g. `['safelinks', 'google']`); empty when none. */
  unwrapped: string[];
  /**
   * The click-tracking service (`'sendgrid'`, `'hubspot'` …) whose redirect
   * `href` still is, because its target is kept at the provider and cannot be
   * read offline; absent when there is none. In a Playwright test,
   * `await message.link(…).resolve()` follows the redirect.
   */
  trackedBy?: string;
  /** The link's text: the first non-URL anchor text, or the image's alt text, or `''`. */
  text: string;
  /** Every distinct text of the anchors merged into this entry, in document order. */
  texts: string[];
  /** The surrounding sentence or cell, whitespace collapsed, at most about 160 characters. */
  context: string;
  /** Whether the link came from the HTML body or the plain-text fallback. */
  source: 'html' | 'text';
  /** How the mail wrote it: an anchor (`<a href>`), or a URL written as text (in a text body, or in an HTML body without an anchor). */
  form: 'anchor' | 'text';
  /**
   * Only on links returned for a filter: why the link matched (`'text
   * matched'`), where it carries the filter (its text, its URL's first path
   * segment, or only deeper in the URL), and whether it is preferred over the
   * other matches or set aside for one that carries the filter up front,
   * and whether a click-tracking redirect was unwrapped or could not be.
   */
  reasons?: string[];
}

/** A one-time-code candidate, as returned by `extractOtps`. */
export interface OtpCandidate {
  /** What the user types: the code with spaces, hyphens and dots removed. */
  code: string;
  /** The code as it appears in the message (first occurrence). */
  raw: string;
  /** Higher is more likely. Only meaningful relative to the other candidates. */
  score: number;
  /** Why the candidate scored what it did, e.g. `'near "verification code"'`, `'large font'`. */
  reasons: string[];
  /** Where the candidate's best occurrence was found. */
  source: ExtractedFrom;
}

/** A number that looked like a code but was ruled out, with the rule that ruled it out. */
export interface RejectedOtp {
  /** The text as it appears in the message. */
  raw: string;
  /** Why it is not a code, e.g. `'a colour (#336699)'`, `'follows "order"'`. */
  reason: string;
  /** Where it was found. */
  source: ExtractedFrom;
}

/**
 * What `extractOtps` and `message.otps()` return: the candidates, best first,
 * and in `rejected` every code-shaped text that was ruled out, with the
 * reason (hidden, a phone number, a date, labelled "order" …), so that a code
 * you can see in the message but not in the list is explained. `rejected` is
 * not enumerable: the value still compares equal to a plain array.
 *
 * @example
 * ```ts
 * const found = message.otps();
 * console.log(found.map((c) => c.code), found.rejected);
 * ```
 */
export type OtpCandidates = OtpCandidate[] & {
  readonly rejected: RejectedOtp[];
  /**
   * The bounds on what is read that applied to this message (more code-shaped
   * strings than are scored, deeper nesting than is read); empty for ordinary
   * mail. Not enumerable, like `rejected`.
   */
  readonly bounds: ExtractionBound[];
};

/**
 * What `extractLinks` and `message.links()` return: the links, and in
 * `bounds` the bounds on what is read that applied (more links than are
 * read, deeper nesting than is read); empty for ordinary mail. `bounds` is not
 * enumerable: the value still compares equal to a plain array.
 */
export type ExtractedLinks = ExtractedLink[] & { readonly bounds: ExtractionBound[] };
