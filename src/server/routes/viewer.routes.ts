/**
 * The web inbox viewer's paths and response policy (the behaviour is in
 * `viewer.handlers.ts`). They are outside `/api/v1` and not part of the
 * OpenAPI document: static files, served to browsers.
 *
 * @packageDocumentation
 */

/** `GET /`: the viewer page. */
export const VIEWER_PAGE_PATH = '/';

/** `GET /viewer/<file>`: its script and styles. */
export const VIEWER_ASSET_PATH = '/viewer/:file';

/**
 * The viewer page's policy: its own script and styles, API calls to this origin,
 * images from anywhere (the message frame decides what it loads), frames only
 * from `srcdoc`, and never framed itself.
 */
export const VIEWER_PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: http: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** What `GET /` answers when this copy of inboxkit has no built viewer (with status 503). */
export const VIEWER_NOT_BUILT_PAGE =
  '<!doctype html><title>inboxkit viewer not built</title><h1>The inbox viewer is not built</h1><p>This copy of inboxkit has no dist/viewer. Run <code>npm run build</code> in the inboxkit checkout; the API is under <a href="/api/v1/openapi.json">/api/v1</a>.</p>';
