/** The result of {@link unwrapTrackingUrl}. */
export interface UnwrapResult {
  /** The innermost URL that could be recovered offline (the input when nothing was unwrapped). */
  url: string;
  /** Names of the wrappers removed, outermost first; empty when the URL was not wrapped. */
  wrappers: string[];
}

type Rule = (url: URL, raw: string) => { name: string; target: string } | null;

const HTTP_URL = /^https?:\/\//i;

function asHttpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  let v = value.trim();
  // Some wrappers encode the target twice; one more decode makes it absolute.
  if (/^https?%3A/i.test(v)) {
    try { v = decodeURIComponent(v); } catch { return null; }
  }
  if (/^aHR0cHM6Ly|^aHR0cDovL/.test(v)) {
    // base64 / base64url of "https://" or "http://": unambiguous, so decode it.
    try { v = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'); } catch { return null; }
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

const RULES: readonly Rule[] = [safelinks, google, proofpoint, awstrack, generic];

/**
 * Removes click-tracking and link-protection wrappers whose target is written
 * in the URL itself, without any network access. Nested wrappers are removed
 * one after another (at most 5 levels).
 *
 * Unwrapped: Outlook SafeLinks, Google `/url?q=`, Proofpoint URL Defense v2
 * and v3, Amazon SES `awstrack.me`, and any tracker carrying an absolute
 * http(s) URL (plain, percent-encoded or base64) in `url`, `u`, `redirect`,
 * `redirect_url`, `target`, `dest`, `destination`, `goto`, `link` or `to`
 * when its other parameters are tracking data only.
 *
 * Kept as is, because the target is stored at the ESP and cannot be recovered
 * without fetching: SendGrid (`/ls/click?upn=`), Mailchimp
 * (`list-manage.com/track/click`), Mailgun (`/c/…`), HubSpot, SparkPost,
 * Mandrill and Postmark tracking links. Follow those with a browser or a
 * request if you need their target.
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
  for (let depth = 0; depth < 5; depth++) {
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
  return { url: current, wrappers };
}
