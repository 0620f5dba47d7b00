/**
 * The web inbox viewer's built files (`index.html`, `viewer.js`, `viewer.css`,
 * bundled by `npm run build` from src/viewer into dist/viewer): where they
 * are, and reading them once. The server imports none of the viewer's code;
 * the viewer is a client of the API like any other.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The files of the built viewer and their content types: the page, its script
 * and styles, and the parts it loads on first use (the client data bundle; axe-core
 * and the accessibility frame's script, built only when axe-core is installed).
 */
export const VIEWER_FILE_TYPES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'viewer.js': 'text/javascript; charset=utf-8',
  'viewer.css': 'text/css; charset=utf-8',
  'email-clients.js': 'text/javascript; charset=utf-8',
  'axe.min.js': 'text/javascript; charset=utf-8',
  'axe-runner.js': 'text/javascript; charset=utf-8',
  'axe.LICENSE.txt': 'text/plain; charset=utf-8',
};

/** The built viewer: next to the compiled server (dist/viewer), or dist/viewer of the checkout when running from src/. */
export function defaultViewerAssetsDir(): string | null {
  for (const candidate of ['../../viewer/', '../../../dist/viewer/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(join(dir, 'viewer.js')) && existsSync(join(dir, 'index.html'))) return dir;
  }
  return null;
}

/** Reads the viewer's files from one folder, each once. */
export interface ViewerAssets {
  /** A file's bytes, or null when it is not one of the viewer's files or is missing. */
  read(file: string): Uint8Array<ArrayBuffer> | null;
}

/**
 * The viewer's files in `dir` (null: there are none, every read is null).
 * Each file is read on first use and kept for the server's life.
 */
export function createViewerAssets(dir: string | null): ViewerAssets {
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  return {
    read(file) {
      if (dir === null || !(file in VIEWER_FILE_TYPES)) return null;
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
    },
  };
}
