/**
 * `link.resolve()`: the target of a click-tracking redirect that cannot be
 * read offline (the provider keeps it), asked of the tracker itself through
 * the test's `request` context. Each hop is one request with redirects off;
 * the first URL that is no longer a tracker is the target, and it is not
 * requested: the page is left for the test to load.
 *
 * @packageDocumentation
 */
import type { APIRequestContext } from '@playwright/test';
import { InboxkitError, unwrapTrackingUrl } from '../client/index.ts';
import type { ExtractedLink } from '../client/index.ts';

/** Options of `link.resolve()`. */
export interface ResolveLinkOptions {
  /**
   * Redirects followed at most.
   * @defaultValue 5
   */
  maxRedirects?: number;
  /**
   * Time allowed for each request, in milliseconds.
   * @defaultValue 10000
   */
  timeout?: number;
}

/** A link whose tracking redirect was followed: `href` is the target, `redirects` every URL the trackers sent it to. */
export interface ResolvedLink extends ExtractedLink {
  /** The URLs the tracker redirected to, in order (the last is the target, before any offline unwrapping). */
  redirects: string[];
}

/** A link as `message.link()` returns it in a Playwright test: with `resolve()`. */
export interface ResolvableLink extends ExtractedLink {
  /**
   * Follows the link's click-tracking redirect through the test's `request`
   * context, for staging setups where tracking is live and its target cannot
   * be read offline (`trackedBy` is set: SendGrid, HubSpot, Mailjet …). The
   * target page itself is not requested. A link that is not tracked comes
   * back as it is, with no request made.
   *
   * @example
   * ```ts
   * const link = await message.link('Confirm email').resolve();
   * await page.goto(link.href);
   * ```
   */
  resolve(options?: ResolveLinkOptions): Promise<ResolvedLink>;
}

/** Follows `link`'s tracking redirects with `request`, one hop at a time, at most `maxRedirects`. */
export async function resolveLink(link: ExtractedLink, request: APIRequestContext, options: ResolveLinkOptions = {}): Promise<ResolvedLink> {
  if (!link.trackedBy) return { ...link, redirects: [] };
  const max = options.maxRedirects ?? 5;
  const timeout = options.timeout ?? 10_000;
  const redirects: string[] = [];
  let url = link.href;
  let tracker: string | undefined = link.trackedBy;
  let unwrapped = [...link.unwrapped];
  while (tracker !== undefined) {
    if (redirects.length >= max) {
      throw new InboxkitError(`link.resolve(): ${link.originalHref} was still at a tracker (${tracker}) after ${max} redirects (${redirects.join(' → ')}); raise { maxRedirects } if the chain is longer.`);
    }
    const response = await request.get(url, { maxRedirects: 0, failOnStatusCode: false, timeout });
    const status = response.status();
    const location = response.headers()['location'];
    await response.dispose();
    if (status < 300 || status > 399 || !location) {
      throw new InboxkitError(`link.resolve(): the ${tracker} tracker at ${url} answered ${status} without a redirect (no Location), so its target is unknown. Is click tracking live in this environment? Otherwise send the mail with tracking off.`);
    }
    const next = new URL(location, url).href;
    redirects.push(next);
    const result = unwrapTrackingUrl(next);
    unwrapped = [...unwrapped, tracker, ...result.wrappers];
    url = result.url;
    tracker = result.trackedBy;
  }
  const { trackedBy: _tracked, ...rest } = link;
  const reasons = [...(link.reasons ?? []).filter((r) => !r.startsWith('tracked by ')), `resolved: ${link.trackedBy} redirected to ${url} (${redirects.length} redirect${redirects.length === 1 ? '' : 's'} followed; the target was not requested)`];
  return { ...rest, href: url, unwrapped, reasons, redirects };
}
