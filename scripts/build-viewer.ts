/**
 * Builds the web inbox viewer (src/viewer) into static files: `viewer.js` (one
 * esbuild bundle, with src/extract and cheerio, so the viewer's extraction
 * view is the code `message.otp()` runs), `viewer.css` and `index.html`; and
 * the parts the viewer loads only when the user opens them:
 * `email-clients.js` (caniemail and its data set, client profiles and
 * compatibility) and, when axe-core is installed, `axe.min.js` (copied, with
 * its licence) and `axe-runner.js` (the accessibility frame's script). The two
 * large ones are stored gzipped only (`.js.gz`), which the server serves.
 * `npm run build` writes them to dist/viewer/, where the server serves them.
 *
 * Usage: `node scripts/build-viewer.ts [outDir]` (default dist/viewer).
 *
 * @packageDocumentation
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import type { BuildOptions, Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = join(ROOT, 'src/viewer');

const COMMON: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};

/**
 * caniemail for the browser: its data set imported as JSON (it reads it with
 * createRequire), and the two Node built-ins its glob matcher (micromatch)
 * touches replaced by what it uses of them (`path.sep`, `path.basename`, and
 * `util.inspect` in error messages).
 */
const caniemailForBrowser: Plugin = {
  name: 'caniemail-browser',
  setup(b) {
    b.onLoad({ filter: /caniemail[\\/]dist[\\/]json\.js$/ }, () => ({
      contents: "import data from '../data/caniemail.json';\nexport const caniEmailJson = data;\n",
      loader: 'js',
    }));
    b.onResolve({ filter: /^(path|util)$/ }, (args) => ({ path: args.path, namespace: 'node-shim' }));
    b.onLoad({ filter: /.*/, namespace: 'node-shim' }, (args) => ({
      contents:
        args.path === 'path'
          ? "export const sep = '/'; export function basename(p) { return String(p).split('/').pop(); } export default { sep, basename };"
          : 'export function inspect(v) { return JSON.stringify(v); } export default { inspect };',
      loader: 'js',
    }));
  },
};

/** axe-core's folder when it is installed (an optional peer dependency), else null. */
function axeCoreDir(): string | null {
  try {
    return dirname(createRequire(join(ROOT, 'package.json')).resolve('axe-core/package.json'));
  } catch {
    return null;
  }
}

/**
 * Replaces `file` by `file.gz` (the server serves it gzipped, or decompressed
 * to a caller that does not accept gzip): the two large parts loaded on first
 * use take a quarter of the space in an install.
 */
function gzipInPlace(file: string): void {
  writeFileSync(`${file}.gz`, gzipSync(readFileSync(file), { level: 9 }));
  rmSync(file);
}

/** Bundles the viewer into `outDir`. */
export async function buildViewer(outDir: string = join(ROOT, 'dist/viewer')): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await build({ ...COMMON, entryPoints: [join(SOURCE, 'main.ts')], outfile: join(outDir, 'viewer.js') });
  gzipInPlace(join(outDir, 'viewer.js'));
  await build({
    ...COMMON,
    entryPoints: [join(SOURCE, 'email-clients.ts')],
    outfile: join(outDir, 'email-clients.js'),
    plugins: [caniemailForBrowser],
    // picomatch asks Node's version whether regular expressions have lookbehind (every target browser has) and the platform for its path separator.
    define: { 'process.platform': '"browser"', 'process.version': '"v22.0.0"' },
  });
  gzipInPlace(join(outDir, 'email-clients.js'));
  for (const file of ['index.html', 'viewer.css']) copyFileSync(join(SOURCE, file), join(outDir, file));
  const axe = axeCoreDir();
  if (axe && existsSync(join(axe, 'axe.min.js'))) {
    await build({ ...COMMON, format: 'iife', entryPoints: [join(SOURCE, 'axe-runner.ts')], outfile: join(outDir, 'axe-runner.js') });
    copyFileSync(join(axe, 'axe.min.js'), join(outDir, 'axe.min.js'));
    gzipInPlace(join(outDir, 'axe.min.js'));
    copyFileSync(join(axe, 'LICENSE'), join(outDir, 'axe.LICENSE.txt'));
  } else {
    // Without axe-core the viewer's accessibility view says how to install it.
    for (const file of ['axe-runner.js', 'axe.min.js.gz', 'axe.LICENSE.txt']) rmSync(join(outDir, file), { force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildViewer(process.argv[2] ? resolve(process.argv[2]) : undefined);
}
