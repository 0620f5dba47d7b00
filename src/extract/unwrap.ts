import { EXTRACTION_BOUNDS } from './dom.ts';

/** The result of {@link unwrapTrackingUrl}. */
export interface UnwrapResult {
  /** The innermost URL that could be recovered offline (the input when nothing was unwrapped). */
  url: string;
  /** Names of the wrappers removed, outermost first; empty when the URL was not wrapped. */
  wrappers: string[];
  /**
   * The click-tracking service of `url` when its target cannot be recovered
   * offline (the provider keeps it): `'sendgrid'`, `'mailchimp'`, `'mailjet'`,
   * `'brevo'`, `'hubspot'`, `'iterable'`, `'klaviyo'`, `'sparkpost'` …; absent otherwise.
   */
  trackedBy?: string;
}

/** Click trackers whose URL carries only an id or an encrypted token: the target is kept at the provider. */
const OPAQUE: ReadonlyArray<{ name: string; test: (u: URL) => boolean }> = [
  { name: 'sendgrid', test: (u) => /^\/(?:ls|wf)\/click$/.test(u.pathname) && u.searchParams.has('upn') },
  { name: 'mailchimp', test: (u) => /(?:^|\.)list-manage\.com$/i.test(u.hostname) && u.pathname.startsWith('/track/click') },
  { name: 'mailjet', test: (u) => /(?:^|\.)mjt\.lu$/i.test(u.hostname) && u.pathname.startsWith('/lnk/') },
  { name: 'brevo', test: (u) => /(?:^|\.)(?:sendibt\d*|sendibm\d*|brevo)\.com$/i.test(u.hostname) || /^\/(?:tr|mk)\/cl\//.test(u.pathname) },
  { name: 'hubspot', test: (u) => /(?:^|\.)(?:hubspotlinks\.com|hubspotemail\.net|hubspotstarter\.net)$/i.test(u.hostname) },
  { name: 'iterable', test: (u) => /(?:^|\.)iterable\.com$/i.test(u.hostname) && u.pathname.startsWith('/u/click') || (u.pathname === '/u/click' && u.searchParams.has('_t')) },
  { name: 'klaviyo', test: (u) => /(?:^|\.)(?:klclick\d*\.com|klaviyomail\.com)$/i.test(u.hostname) },
  { name: 'sparkpost', test: (u) => /(?:^|\.)(?:sparkpostmail\.com|spgo\.io)$/i.test(u.hostname) || /^\/f\/a\/[^/]+\/[^/]+/.test(u.pathname) && u.pathname.includes('~') },
  { name: 'salesforce', test: (u) => /(?:^|\.)(?:exacttarget\.com|exct\.net)$/i.test(u.hostname) && u.searchParams.has('qs') },
  { name: 'constant contact', test: (u) => /(?:^|\.)rs6\.net$/i.test(u.hostname) },
  { name: 'campaign monitor', test: (u) => /(?:^|\.)createsend\d*\.com$/i.test(u.hostname) },
];

/** The click-tracking service whose redirect `url` is when its target cannot be read offline, or `undefined`. */
export function opaqueTracker(url: string): string | undefined {
  let u: URL;
  try { u = new URL(url); } catch { return undefined; }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  return OPAQUE.find((t) => t.test(u))?.name;
}

type Rule = (url: URL, raw: string) => { name: string; target: string } | null;

const HTTP_URL = /^https?:\/\//i;

/** The bytes of base64 or base64url text, or `null` (works in Node.js and in the viewer's browser). */
function base64Bytes(value: string): Uint8Array | null {
  try {
    const binary = atob(value.replace(/-/g, '+').replace(/_/g, '/').replace(/[^A-Za-z0-9+/]/g, '').padEnd(Math.ceil(value.length / 4) * 4, '='));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch { return null; }
}

/** Base64 or base64url text decoded as UTF-8, or `null`. */
function base64Text(value: string): string | null {
  const bytes = base64Bytes(value);
  if (bytes === null) return null;
  try { return new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { return null; }
}

/** zlib-inflated bytes as UTF-8 text, or `null`: Node.js's zlib when there is one (the viewer's browser has no synchronous inflate). */
function inflated(bytes: Uint8Array): string | null {
  const zlib = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:zlib') as { inflateSync?: (b: Uint8Array, o: { maxOutputLength: number }) => Uint8Array } | undefined;
  if (!zlib?.inflateSync) return null;
  try { return new TextDecoder('utf-8', { fatal: true }).decode(zlib.inflateSync(bytes, { maxOutputLength: 64 * 1024 })); } catch { return null; }
}

/** The target a tracker's JSON payload names: the first http(s) URL under a link key, or any http(s) string value. */
function urlInJson(text: string | null, keys: readonly string[]): string | null {
  if (text === null) return null;
  let data: unknown;
  try { data = JSON.parse(text); } catch { return null; }
  if (typeof data !== 'object' || data === null) return null;
  const record = data as Record<string, unknown>;
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string' && HTTP_URL.test(value)) return asHttpUrl(value);
  }
  for (const value of Object.values(record)) if (typeof value === 'string' && HTTP_URL.test(value)) return asHttpUrl(value);
  return null;
}

function asHttpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  let v = value.trim();
  // Some wrappers encode the target twice; one more decode makes it absolute.
  if (/^https?%3A/i.test(v)) {
    try { v = decodeURIComponent(v); } catch { return null; }
  }
  if (/^aHR0cHM6Ly|^aHR0cDovL/.test(v)) {
    // base64 / base64url of "https://" or "http://": unambiguous, so decode it.
    const text = base64Text(v);
    if (text === null) return null;
    v = text;
  }
  if (!HTTP_URL.test(v)) return null;
  try { return new URL(v).href; } catch { return null; }
}

/** Outlook / Microsoft Defender SafeLinks: `https://nam12.safelinks.protection.outlook.com/?url=…&data=…`. */
const safelinks: Rule = (u) => {
  const host = u.hostname.toLowerCase();
  if (host !== 'safelinks.protection.outlook.com' && !host.endsWith('.safelinks.protection.outlook.com')) return null;
  const target = asHttpUrl(u.searchParams.get('url'));
  return target ? { name: 'safelinks', target } : null;
};

/** Google's redirector: `https://www.google.com/url?q=…` (also `url=`). */
const google: Rule = (u) => {
  if (!/^(?:www\.)?google\.[a-z]{2,3}(?:\.[a-z]{2})?$/i.test(u.hostname) || u.pathname !== '/url') return null;
  const target = asHttpUrl(u.searchParams.get('q') ?? u.searchParams.get('url'));
  return target ? { name: 'google', target } : null;
};

/** Proofpoint URL Defense v2 (`/v2/url?u=https-3A__example.com_path`) and v3 (`/v3/__https://…__;…`). */
const proofpoint: Rule = (u, raw) => {
  const host = u.hostname.toLowerCase();
  if (host === 'urldefense.proofpoint.com' && u.pathname === '/v2/url') {
    const encoded = u.searchParams.get('u');
    if (!encoded) return null;
    try {
      const target = asHttpUrl(decodeURIComponent(encoded.replace(/-/g, '%').replace(/_/g, '/')));
      return target ? { name: 'proofpoint', target } : null;
    } catch { return null; }
  }
  if (host === 'urldefense.com') {
    const m = /\/v3\/__(.+?)__;/.exec(raw);
    // A `*` marks characters Proofpoint moved into the trailing blob; those need its key, so keep the wrapper.
    if (!m?.[1] || m[1].includes('*')) return null;
    const target = asHttpUrl(m[1]);
    return target ? { name: 'proofpoint', target } : null;
  }
  return null;
};

/** Amazon SES click tracking: `https://xyz.r.us-east-1.awstrack.me/L0/https:%2F%2Fexample.com%2Fpath/1/0100…`. */
const awstrack: Rule = (u) => {
  if (!u.hostname.toLowerCase().endsWith('.awstrack.me')) return null;
  const m = /^\/L\d+\/([^/]+)\//.exec(u.pathname);
  if (!m?.[1]) return null;
  try {
    const target = asHttpUrl(decodeURIComponent(m[1]));
    return target ? { name: 'awstrack', target } : null;
  } catch { return null; }
};

/**
 * Mailgun: `https://email.mg.example.com/c/eJx…` on any tracking domain, the
 * payload base64url of zlib-compressed form data (`d=…&h=…&i=…&l=<target>&r=…`)
 * whose `l` is the target, percent-encoded.
 */
const mailgun: Rule = (u) => {
  const m = /^\/c\/(eJ[A-Za-z0-9_-]{10,})$/.exec(u.pathname);
  const bytes = m?.[1] ? base64Bytes(m[1]) : null;
  const text = bytes ? inflated(bytes) : null;
  const target = text === null ? null : asHttpUrl(new URLSearchParams(text).get('l'));
  return target ? { name: 'mailgun', target } : null;
};

/** Mandrill / Mailchimp Transactional: `mandrillapp.com/track/click/…?p=` base64 JSON whose `p` is JSON with the `url`. */
const mandrill: Rule = (u) => {
  if (!/(?:^|\.)mandrillapp\.com$/i.test(u.hostname) || !u.pathname.startsWith('/track/click/')) return null;
  const p = u.searchParams.get('p');
  if (!p) return null;
  try {
    const outer = JSON.parse(base64Text(p) ?? '') as { p?: unknown };
    const target = typeof outer.p === 'string' ? urlInJson(outer.p, ['url']) : null;
    return target ? { name: 'mandrill', target } : null;
  } catch { return null; }
};

/**
 * Postmark: `click.pstmrk.it/3s/app.example.com%2Fverify%3Ft%3D1/…`: the
 * target, percent-encoded, without its scheme, after a segment of a version
 * digit and flag letters (`2s`, `2sm`, `3s`, `3ts` are seen in real mail;
 * `s`: https).
 */
const postmark: Rule = (u) => {
  if (!/(?:^|\.)pstmrk\.it$/i.test(u.hostname)) return null;
  const m = /^\/\d+([a-z]{0,3})\/([^/]+)/.exec(u.pathname);
  if (!m?.[2]) return null;
  let path: string;
  try { path = decodeURIComponent(m[2]); } catch { return null; }
  const target = asHttpUrl(HTTP_URL.test(path) ? path : `${m[1]?.includes('s') ? 'https' : 'http'}://${path}`);
  return target ? { name: 'postmark', target } : null;
};

/** Customer.io: `…/e/c/eyJ…/sig` on any tracking domain, base64url JSON with the target in `href`. */
const customerio: Rule = (u) => {
  const m = /^\/e\/c\/(eyJ[A-Za-z0-9_-]+={0,2})(?:\/|$)/.exec(u.pathname);
  const target = m?.[1] ? urlInJson(base64Text(m[1]), ['href', 'url']) : null;
  return target ? { name: 'customer.io', target } : null;
};

const GENERIC_PARAMS = ['url', 'u', 'redirect', 'redirect_url', 'redirecturl', 'target', 'dest', 'destination', 'goto', 'link', 'to'];
const TRACKING_PARAM = /^(?:utm_\w+|sig|signature|hash|h|id|uid|mid|cid|lid|rid|tid|eid|sid|t|ts|timestamp|src|source|ref|campaign|c|m|e|n|v|ver|version|type|data|reserved|sdata)$/i;
const AUTH_PATH = /verify|verif|confirm|activat|reset|password|login|log-in|signin|sign-in|sign_in|magic|auth|callback|sso|invite|accept/i;

/**
 * A click tracker that carries its target as an absolute URL in a query
 * parameter (`?url=`, `?u=`, `?redirect=`, `?target=`, `?dest=` …). To avoid
 * turning a magic link with a `?redirect=` (where to go AFTER signing in) into
 * its post-login page, the wrapper is removed only when every other parameter
 * looks like tracking data and the path does not look like an auth action.
 */
const generic: Rule = (u) => {
  if (AUTH_PATH.test(u.pathname)) return null;
  let found: { key: string; target: string } | null = null;
  for (const key of GENERIC_PARAMS) {
    const value = u.searchParams.get(key);
    const target = asHttpUrl(value);
    if (target) { found = { key, target }; break; }
  }
  if (!found) return null;
  for (const key of u.searchParams.keys()) {
    if (key !== found.key && !TRACKING_PARAM.test(key)) return null;
  }
  return { name: `redirect(${found.key})`, target: found.target };
};

const RULES: readonly Rule[] = [safelinks, google, proofpoint, awstrack, mailgun, mandrill, postmark, customerio, generic];

/**
 * Removes click-tracking and link-protection wrappers whose target is written
 * in the URL itself, without any network access. Nested wrappers are removed
 * one after another (at most 5 levels).
 *
 * Unwrapped: Outlook SafeLinks, Google `/url?q=`, Proofpoint URL Defense v2
 * and v3, Amazon SES `awstrack.me`, Mailgun (`/c/` payload: base64 of
 * zlib-compressed form data whose `l` is the target), Mandrill / Mailchimp
 * Transactional (`p=` base64 JSON), Postmark (`pstmrk.it/…/<percent-encoded target>/…`), Customer.io
 * (`/e/c/` base64 JSON), and any tracker carrying an absolute http(s) URL
 * (plain, percent-encoded or base64) in `url`, `u`, `redirect`,
 * `redirect_url`, `target`, `dest`, `destination`, `goto`, `link` or `to`
 * when its other parameters are tracking data only.
 *
 * Kept as is, with the provider in `trackedBy`, because the target is stored
 * at the provider and the URL holds only an id or an encrypted token:
 * SendGrid (`/ls/click?upn=`), Mailchimp (`list-manage.com/track/click`),
 * Mailjet, Brevo (Sendinblue), HubSpot, Iterable, Klaviyo, SparkPost,
 * Salesforce Marketing Cloud, Constant Contact and Campaign Monitor. Follow
 * those with a request (`await link.resolve()` in a Playwright test).
 *
 * @example
 * ```ts
 * unwrapTrackingUrl('https://nam12.safelinks.protection.outlook.com/?url=https%3A%2F%2Fapp.example.com%2Fverify%3Ft%3D1&data=x');
 * // → { url: 'https://app.example.com/verify?t=1', wrappers: ['safelinks'] }
 * ```
 */
export function unwrapTrackingUrl(url: string): UnwrapResult {
  const wrappers: string[] = [];
  let current = url;
  for (let depth = 0; depth < 5 && current.length <= EXTRACTION_BOUNDS.url; depth++) {
    let parsed: URL;
    try { parsed = new URL(current); } catch { break; }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') break;
    let next: { name: string; target: string } | null = null;
    for (const rule of RULES) {
      next = rule(parsed, current);
      if (next) break;
    }
    if (!next || next.target === current) break;
    wrappers.push(next.name);
    current = next.target;
  }
  const trackedBy = opaqueTracker(current);
  return trackedBy ? { url: current, wrappers, trackedBy } : { url: current, wrappers };
}
