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
import { gunzipSync } from 'node:zlib';

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

/**
 * The parts the build stores gzipped only (`<file>.gz`), to keep inboxkit's
 * install small: served as they are to browsers that accept gzip (all do),
 * decompressed for any other caller.
 */
export const VIEWER_GZIPPED_FILES: ReadonlySet<string> = new Set(['viewer.js', 'email-clients.js', 'axe.min.js']);

/** Largest decompressed viewer part, a bound no built file comes near. */
const MAX_GUNZIPPED_BYTES = 16 * 1024 * 1024;

/** The built viewer: next to the compiled server (dist/viewer), or dist/viewer of the checkout when running from src/. */
export function defaultViewerAssetsDir(): string | null {
  for (const candidate of ['../../viewer/', '../../../dist/viewer/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(join(dir, 'viewer.js.gz')) && existsSync(join(dir, 'index.html'))) return dir;
  }
  return null;
}

/** Reads the viewer's files from one folder, each once. */
export interface ViewerAssets {
  /** A file's bytes, or null when it is not one of the viewer's files or is missing. */
  read(file: string): Uint8Array<ArrayBuffer> | null;
  /** A file's bytes gzipped, for a file the build stores gzipped ({@link VIEWER_GZIPPED_FILES}); null otherwise or when missing. */
  readGzipped(file: string): Uint8Array<ArrayBuffer> | null;
}

/**
 * The viewer's files in `dir` (null: there are none, every read is null).
 * Each file is read on first use and kept for the server's life.
 */
export function createViewerAssets(dir: string | null): ViewerAssets {
  const cache = new Map<string, Uint8Array<ArrayBuffer> | null>();
  const readOnce = (name: string, decode?: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> | null => {
    if (dir === null) return null;
    const key = decode ? `${name}\u0000decoded` : name;
    if (cache.has(key)) return cache.get(key) ?? null;
    let body: Uint8Array<ArrayBuffer>;
    try {
      body = new Uint8Array(readFileSync(join(dir, name)));
      if (decode) body = decode(body);
    } catch {
      // Missing files are looked for again next time (a build may add them); they are not cached.
      return null;
    }
    cache.set(key, body);
    return body;
  };
  const gunzip = (bytes: Uint8Array<ArrayBuffer>) => new Uint8Array(gunzipSync(bytes, { maxOutputLength: MAX_GUNZIPPED_BYTES }));
  return {
    read(file) {
      if (!(file in VIEWER_FILE_TYPES)) return null;
      return VIEWER_GZIPPED_FILES.has(file) ? readOnce(`${file}.gz`, gunzip) : readOnce(file);
    },
    readGzipped(file) {
      if (!(file in VIEWER_FILE_TYPES) || !VIEWER_GZIPPED_FILES.has(file)) return null;
      return readOnce(`${file}.gz`);
    },
  };
}
