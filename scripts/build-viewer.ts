/**
 * Builds the web inbox viewer (src/viewer) into static files: `viewer.js` (one
 * esbuild bundle, with src/extract and cheerio, so the viewer's extraction
 * view is the code `message.otp()` runs), `viewer.css` and `index.html`.
 * `npm run build` writes them to dist/viewer/, where the server serves them.
 *
 * Usage: `node scripts/build-viewer.ts [outDir]` (default dist/viewer).
 *
 * @packageDocumentation
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = join(ROOT, 'src/viewer');

/** Bundles the viewer into `outDir`. */
export async function buildViewer(outDir: string = join(ROOT, 'dist/viewer')): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(SOURCE, 'main.ts')],
    outfile: join(outDir, 'viewer.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'viewer.css']) copyFileSync(join(SOURCE, file), join(outDir, file));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildViewer(process.argv[2] ? resolve(process.argv[2]) : undefined);
}
