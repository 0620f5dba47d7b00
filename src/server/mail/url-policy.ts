/**
 * Which URLs an email may keep: links to the web, mail and phone; images over
 * http(s), as raster `data:` URLs, or through the message's own `cid:` parts.
 */

/** Per-call options of the sanitizer: how `cid:` references become URLs. */
export interface SanitizeOptions {
  /**
   * Maps a `cid:` reference (without the `cid:` prefix, percent-decoded) to a URL a
   * page can load, or `null` when the message has no such part (the reference is
   * then removed).
   */
  resolveCid(contentId: string): string | null;
}

const LINK_SCHEMES = new Set(['http', 'https', 'mailto', 'tel', 'sms']);
const IMAGE_SCHEMES = new Set(['http', 'https']);

/** Raster image types a `data:` URL may carry; SVG is a document and is refused. */
export const DATA_IMAGE = /^data:image\/(?:png|jpeg|jpg|gif|webp|bmp|avif|x-icon|vnd\.microsoft\.icon)[;,]/i;

/** The same raster types as media types (for attachments turned into `data:` URLs). */
export const INLINE_IMAGE_TYPE = /^image\/(?:png|jpeg|jpg|gif|webp|bmp|avif|x-icon|vnd\.microsoft\.icon)$/;

/**
 * The scheme a browser would see: leading C0 controls and spaces stripped,
 * tabs and newlines removed anywhere (WHATWG URL parsing), lower-cased.
 */
export function schemeOf(url: string): string | null {
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
export function imageUrl(url: string, options: SanitizeOptions): string | null {
  const scheme = schemeOf(url);
  if (scheme === 'cid') return resolveCidUrl(url, options);
  if (scheme !== null && IMAGE_SCHEMES.has(scheme)) return url;
  if (scheme === 'data' && DATA_IMAGE.test(url.trim())) return url;
  return null;
}

/** Links: web, mail and phone URLs and relative ones; never script or data. */
export function isSafeLink(url: string): boolean {
  const scheme = schemeOf(url);
  return scheme === null || LINK_SCHEMES.has(scheme);
}
