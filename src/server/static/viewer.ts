/**
 * Serves the web inbox viewer: the static files `npm run build` bundles from
 * src/viewer into dist/viewer. The server imports none of the viewer's code;
 * the viewer is a client of the API like any other and holds its credential in
 * the URL fragment, which never reaches this server.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import type { AppEnv } from '../context.ts';

/** Options of {@link createViewerRoutes}. */
export interface ViewerRoutesOptions {
  /**
   * The folder with `index.html`, `viewer.js` and `viewer.css`.
   * @defaultValue dist/viewer of this package (next to the compiled server, or
   * the built one when the server runs from its TypeScript sources)
   */
  assetsDir?: string;
}

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'viewer.js': 'text/javascript; charset=utf-8',
  'viewer.css': 'text/css; charset=utf-8',
};

/**
 * The viewer page's policy: its own script and styles, API calls to this origin,
 * images from anywhere (the message frame decides what it loads), frames only
 * from `srcdoc`, and never framed itself.
 */
const PAGE_POLICY = [
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

/** The built viewer: next to the compiled server (dist/viewer), or dist/viewer of the checkout when running from src/. */
export function defaultViewerAssetsDir(): string | null {
  for (const candidate of ['../../viewer/', '../../../dist/viewer/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(join(dir, 'viewer.js')) && existsSync(join(dir, 'index.html'))) return dir;
  }
  return null;
}

/**
 * `GET /` (the viewer page) and `GET /viewer/<file>` (its script and styles).
 * Without built assets, `/` answers 503 with a page that says how to build them.
 */
export function createViewerRoutes(options: ViewerRoutesOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const dir = options.assetsDir ?? defaultViewerAssetsDir();
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  const read = (file: string): Uint8Array<ArrayBuffer> | null => {
    if (dir === null || !(file in TYPES)) return null;
    let body = cache.get(file);
    if (!body) {
      try {
        body = new Uint8Array(readFileSync(join(dir, file)));
      } catch {
        return null;
      }
      cache.set(file, body);
    }
    return body;
  };
  const serve = (file: string): Response | null => {
    const body = read(file);
    if (body === null) return null;
    return new Response(body, {
      headers: {
        'Content-Type': TYPES[file]!,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        ...(file === 'index.html' ? { 'Content-Security-Policy': PAGE_POLICY, 'X-Frame-Options': 'DENY' } : {}),
      },
    });
  };

  app.get('/', (c) => {
    const page = serve('index.html');
    if (page) return page;
    return c.html(
      '<!doctype html><title>inboxkit viewer not built</title><h1>The inbox viewer is not built</h1><p>This copy of inboxkit has no dist/viewer. Run <code>npm run build</code> in the inboxkit checkout; the API is under <a href="/api/v1/openapi.json">/api/v1</a>.</p>',
      503,
    );
  });
  app.get('/viewer/:file', (c) => serve(c.req.param('file')) ?? c.notFound());
  return app;
}
