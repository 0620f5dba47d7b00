/**
 * Serves the web inbox viewer (paths and policy in `viewer.routes.ts`): the
 * static files `npm run build` bundles from src/viewer. The viewer holds its
 * credential in the URL fragment, which never reaches this server.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { AppEnv } from '../context/context.ts';
import { VIEWER_FILE_TYPES, VIEWER_GZIPPED_FILES, createViewerAssets, defaultViewerAssetsDir } from '../static/viewer-assets.ts';
import { VIEWER_ASSET_PATH, VIEWER_NOT_BUILT_PAGE, VIEWER_PAGE_PATH, VIEWER_PAGE_POLICY } from './viewer.routes.ts';

/** Options of {@link createViewerRoutes}. */
export interface ViewerRoutesOptions {
  /**
   * The folder with `index.html`, `viewer.js` and `viewer.css`.
   * @defaultValue dist/viewer of this package (next to the compiled server, or
   * the built one when the server runs from its TypeScript sources)
   */
  assetsDir?: string;
}

/**
 * `GET /` (the viewer page) and `GET /viewer/<file>` (its script and styles).
 * Without built assets, `/` answers 503 with a page that says how to build them.
 */
export function createViewerRoutes(options: ViewerRoutesOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const assets = createViewerAssets(options.assetsDir ?? defaultViewerAssetsDir());
  const serve = (file: string, acceptEncoding = ''): Response | null => {
    // The parts stored gzipped go out as they are to a browser that accepts gzip.
    const gzipped = /\bgzip\b/i.test(acceptEncoding) ? assets.readGzipped(file) : null;
    const body = gzipped ?? assets.read(file);
    if (body === null) return null;
    return new Response(body, {
      headers: {
        'Content-Type': VIEWER_FILE_TYPES[file]!,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        ...(VIEWER_GZIPPED_FILES.has(file) ? { Vary: 'Accept-Encoding' } : {}),
        ...(gzipped ? { 'Content-Encoding': 'gzip' } : {}),
        ...(file === 'index.html' ? { 'Content-Security-Policy': VIEWER_PAGE_POLICY, 'X-Frame-Options': 'DENY' } : {}),
      },
    });
  };

  app.get(VIEWER_PAGE_PATH, (c) => serve('index.html') ?? c.html(VIEWER_NOT_BUILT_PAGE, 503));
  app.get(VIEWER_ASSET_PATH, (c) => serve(c.req.param('file'), c.req.header('Accept-Encoding')) ?? c.notFound());
  return app;
}
