/**
 * The link check: every http(s) link and image of an email requested through
 * a {@link LinkRequester} — in a test, the test's own `request` context (so it
 * reaches the app under test at `baseURL`, with the test's proxy, headers and
 * cookies); in the MCP server, `fetch` — following redirects one hop at a
 * time up to a bound, a few at a time. Only the app's own origin (and what
 * `allow` adds) is ever contacted; other links are listed as skipped.
 *
 * @packageDocumentation
 */
import * as cheerio from 'cheerio';
import type { ExtractedLink } from '../extract/index.ts';

/** What the link check reads of a message: its links and its sanitized HTML (for the images). */
export interface LinkCheckable {
  /** The message's links, as `message.links()` gives them. */
  links(): ExtractedLink[];
  /** The sanitized HTML. */
  html: string | null;
  /**
   * The HTML's images, when they were already listed elsewhere (the MCP server
   * lists them in an analysis worker, off its event loop); otherwise the check
   * reads them from `html`.
   */
  images?: () => CheckableImage[];
}

/** An image of a message: its `src` and its `alt` text. */
export interface CheckableImage {
  url: string;
  text: string;
}

/** One answer of a {@link LinkRequester}: Playwright's `APIResponse` is one. */
export interface LinkResponse {
  status(): number;
  headers(): Record<string, string>;
  dispose(): Promise<void>;
}

/** What makes the requests: Playwright's `APIRequestContext` is one. */
export interface LinkRequester {
  /** One GET, redirects not followed (`maxRedirects: 0`), never throwing on an HTTP status. */
  fetch(url: string, options: { method: 'GET'; maxRedirects: 0; timeout: number; failOnStatusCode: false }): Promise<LinkResponse>;
}

/** Options of `message.checkLinks()` and `toHaveWorkingLinks()`. */
export interface LinkCheckOptions {
  /**
   * More places that may be requested, besides the app's origin (`baseURL`):
   * an origin (`'https://cdn.acme.example'`), a host with or without port
   * (`'cdn.acme.example'`, `'localhost:4000'`), or a RegExp tested against a URL's origin.
   * Links anywhere else are skipped, never contacted.
   * @defaultValue `[]`
   */
  allow?: ReadonlyArray<string | RegExp>;
  /**
   * Links not to request, by URL: a string the URL contains, or a RegExp. A
   * check requests links with GET, as a click does, so a one-time link
   * (a confirmation or magic link) would be spent by it: exclude those, or
   * check the email after the flow has used them.
   * @defaultValue `[]`
   */
  exclude?: ReadonlyArray<string | RegExp>;
  /**
   * Redirects followed per link; one more makes the link broken.
   * @defaultValue 5
   */
  maxRedirects?: number;
  /**
   * Requests in flight at once.
   * @defaultValue 4
   */
  concurrency?: number;
  /**
   * Timeout of each request, in milliseconds.
   * @defaultValue 10000
   */
  timeout?: number;
  /**
   * Whether images (`<img src>`) are checked as well as links.
   * @defaultValue true
   */
  images?: boolean;
}

/** The outcome for one link or image. */
export interface CheckedLink {
  /** A link (`<a href>`, or a URL in the text body) or an image (`<img src>`). */
  kind: 'link' | 'image';
  /** The link's text, or the image's alt text. */
  text: string;
  /** The URL checked: the link's target, with tracking redirects unwrapped. */
  url: string;
  /** The URL as the email wrote it, when a tracking wrapper was removed; otherwise `null`. */
  originalUrl: string | null;
  /** `ok`: answered below 400 in the end; `broken`: 400 or more, an error, or too many redirects; `skipped`: not requested. */
  result: 'ok' | 'broken' | 'skipped';
  /** The last status received, or `null` when nothing was. */
  status: number | null;
  /** What went wrong (a network error, a redirect loop …), or `null`. */
  error: string | null;
  /** Each URL a redirect led to, in order. */
  redirects: string[];
  /** Why it was skipped (or why a redirect was not followed), or `null`. */
  note: string | null;
}

/** What `message.checkLinks()` returns. */
export interface LinkCheckReport {
  /** Every link and image, in document order (links first). */
  links: CheckedLink[];
  /** The ones that work. */
  ok: CheckedLink[];
  /** The broken ones. */
  broken: CheckedLink[];
  /** The ones not requested (another host, not http(s)). */
  skipped: CheckedLink[];
  /** The origins requests were allowed to (the app's), for the record. */
  allowed: string[];
}

/** What the check needs from the running test (or the program that runs it). */
export interface LinkCheckContext {
  /** The test's `request` fixture, or any other {@link LinkRequester}. */
  request: LinkRequester;
  /** The test's `baseURL`, or undefined. */
  baseURL: string | undefined;
}

const DEFAULTS = { maxRedirects: 5, concurrency: 4, timeout: 10_000, images: true } as const;

function checkOptions(options: LinkCheckOptions): Required<LinkCheckOptions> {
  const merged = { ...DEFAULTS, allow: [], exclude: [], ...options };
  const count = (name: string, value: number, min: number) => {
    if (!Number.isInteger(value) || value < min) throw new Error(`checkLinks: ${name} must be an integer ≥ ${min}; got ${String(value)}.`);
  };
  count('maxRedirects', merged.maxRedirects, 0);
  count('concurrency', merged.concurrency, 1);
  count('timeout', merged.timeout, 0);
  for (const entry of merged.allow) {
    if (!(entry instanceof RegExp) && (typeof entry !== 'string' || entry.trim() === '')) {
      throw new Error(`checkLinks: allow takes origins ('https://cdn.example'), hosts ('cdn.example') or RegExps; got ${JSON.stringify(entry)}.`);
    }
  }
  return merged;
}

/** Whether `url` may be requested: the app's origin, or one `allow` names. */
function allowedBy(url: URL, appOrigins: string[], allow: ReadonlyArray<string | RegExp>): boolean {
  if (appOrigins.includes(url.origin)) return true;
  return allow.some((entry) => {
    if (entry instanceof RegExp) return entry.test(url.origin);
    const value = entry.trim().toLowerCase().replace(/\/+$/, '');
    return value.includes('://') ? value === url.origin : value === url.host || value === url.hostname;
  });
}

/** The distinct `src` of a message's images, in document order, each with its `alt` text. */
export function imagesOf(html: string | null): CheckableImage[] {
  if (html === null) return [];
  const $ = cheerio.load(html);
  const seen = new Set<string>();
  const out: CheckableImage[] = [];
  $('img[src]').each((_, element) => {
    const url = ($(element).attr('src') ?? '').trim();
    if (url === '' || seen.has(url)) return;
    seen.add(url);
    out.push({ url, text: ($(element).attr('alt') ?? '').trim() });
  });
  return out;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n').find((line) => line.trim() !== '') ?? message).replace(/^apiRequestContext\.fetch:\s*/, '').trim();
}

async function follow(item: CheckedLink, ctx: LinkCheckContext, origins: string[], options: ReturnType<typeof checkOptions>): Promise<void> {
  let current = item.url;
  const visited = new Set<string>([current]);
  for (;;) {
    let status: number;
    let location: string | undefined;
    try {
      const response = await ctx.request.fetch(current, { method: 'GET', maxRedirects: 0, timeout: options.timeout, failOnStatusCode: false });
      status = response.status();
      location = response.headers()['location'];
      await response.dispose();
    } catch (error) {
      item.result = 'broken';
      item.error = firstLine(error);
      return;
    }
    item.status = status;
    if (status < 300 || status >= 400 || location === undefined) {
      item.result = status < 400 ? 'ok' : 'broken';
      return;
    }
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      item.result = 'broken';
      item.error = `redirect to an invalid URL ${JSON.stringify(location)}`;
      return;
    }
    item.redirects.push(next.href);
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      item.result = 'ok';
      item.note = `redirects to a ${next.protocol} URL, not followed`;
      return;
    }
    if (!allowedBy(next, origins, options.allow)) {
      item.result = 'ok';
      item.note = `redirects to ${next.origin}, not followed (not the app's origin; add it to allow to follow)`;
      return;
    }
    if (visited.has(next.href)) {
      item.result = 'broken';
      item.error = `redirect loop back to ${next.href}`;
      return;
    }
    if (item.redirects.length > options.maxRedirects) {
      item.result = 'broken';
      item.error = `more than ${options.maxRedirects} redirects`;
      return;
    }
    visited.add(next.href);
    current = next.href;
  }
}

/**
 * Checks the links and images of a message through the test's `request`
 * context. Used by `message.checkLinks()` and `toHaveWorkingLinks()`.
 *
 * @throws Error when no origin may be requested (no `baseURL` and no `allow`), or an option is invalid.
 */
export async function checkMessageLinks(message: LinkCheckable, ctx: LinkCheckContext, options: LinkCheckOptions = {}): Promise<LinkCheckReport> {
  const resolved = checkOptions(options);
  const origins: string[] = [];
  if (ctx.baseURL !== undefined && ctx.baseURL !== '') {
    try {
      origins.push(new URL(ctx.baseURL).origin);
    } catch {
      throw new Error(`checkLinks: the test's baseURL ${JSON.stringify(ctx.baseURL)} is not a URL; fix use.baseURL in playwright.config.`);
    }
  }
  if (origins.length === 0 && resolved.allow.length === 0) {
    throw new Error(
      "checkLinks: there is no app origin to check links against: the test has no baseURL. Set use.baseURL in playwright.config (the app's origin), or pass { allow: ['https://app.example'] }.",
    );
  }

  const items: CheckedLink[] = [];
  const add = (kind: CheckedLink['kind'], text: string, url: string, originalUrl: string | null) =>
    items.push({ kind, text, url, originalUrl, result: 'skipped', status: null, error: null, redirects: [], note: null });
  for (const link of message.links()) add('link', link.text, link.href, link.unwrapped.length > 0 ? link.originalHref : null);
  if (resolved.images) for (const image of message.images?.() ?? imagesOf(message.html)) add('image', image.text, image.url, null);

  const queue: CheckedLink[] = [];
  for (const item of items) {
    let url: URL;
    try {
      url = new URL(item.url);
    } catch {
      item.note = 'not an absolute URL';
      continue;
    }
    const excluded = resolved.exclude.find((entry) => (entry instanceof RegExp ? entry.test(item.url) : item.url.includes(entry)));
    if (excluded !== undefined) item.note = `excluded by ${String(excluded)}`;
    else if (url.protocol !== 'http:' && url.protocol !== 'https:') item.note = `a ${url.protocol} link`;
    else if (!allowedBy(url, origins, resolved.allow)) item.note = `${url.origin} is not the app's origin (add it to allow to check it)`;
    else queue.push(item);
  }

  let next = 0;
  const worker = async () => {
    while (next < queue.length) {
      const item = queue[next++] as CheckedLink;
      await follow(item, ctx, origins, resolved);
    }
  };
  await Promise.all(Array.from({ length: Math.min(resolved.concurrency, queue.length) }, worker));

  return {
    links: items,
    ok: items.filter((i) => i.result === 'ok'),
    broken: items.filter((i) => i.result === 'broken'),
    skipped: items.filter((i) => i.result === 'skipped'),
    allowed: [...origins, ...resolved.allow.map(String)],
  };
}

/** One line per link: `✗ "Reset password" http://…/reset → 404`. */
export function describeCheckedLink(link: CheckedLink): string {
  const mark = link.result === 'ok' ? '✓' : link.result === 'broken' ? '✗' : '–';
  const text = link.text !== '' ? JSON.stringify(link.text) : link.kind === 'image' ? '(image without alt text)' : '(no text)';
  const hops = link.redirects.length > 0 ? ` → ${link.redirects.join(' → ')}` : '';
  const outcome = link.error ?? (link.status !== null ? String(link.status) : '');
  const unwrapped = link.originalUrl !== null ? ` (unwrapped from ${link.originalUrl})` : '';
  const note = link.note !== null ? ` [${link.note}]` : '';
  return `${mark} ${link.kind} ${text} ${link.url}${unwrapped}${hops}${outcome !== '' ? `: ${outcome}` : ''}${note}`;
}

/** The whole report as text (what the report attachment holds). */
export function describeLinkReport(report: LinkCheckReport): string {
  return [
    `${report.ok.length} working, ${report.broken.length} broken, ${report.skipped.length} skipped; requests allowed to ${report.allowed.join(', ')}`,
    ...report.links.map(describeCheckedLink),
  ].join('\n');
}
