/**
 * Bundles the third-party code that inboxkit ships rather than installs:
 * the `caniemail` package (its detection code, its caniemail.com data set and
 * the small libraries it imports) into `vendor/caniemail.js`, with every
 * bundled package's licence in `vendor/caniemail.LICENSES.txt`.
 *
 * Why: `caniemail` declares a Prettier plugin as a runtime dependency, which
 * would put Prettier, Babel and lodash (about 25 MB that never run) into every
 * project that installs inboxkit. Bundled at build time, it is a devDependency,
 * and users get the ~1 MB that runs. src/client/message/compatibility.ts loads
 * the bundle on first use (`vendor/` sits three folders above both
 * src/client/message and dist/client/message, so the same relative URL works
 * from either).
 *
 * Usage: `node scripts/build-vendor.ts` (part of `npm run build`).
 *
 * @packageDocumentation
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'vendor');

/** caniemail reads its data set with createRequire, which esbuild cannot follow: import it as JSON instead. */
const jsonData: Plugin = {
  name: 'caniemail-json',
  setup(b) {
    b.onLoad({ filter: /caniemail[\\/]dist[\\/]json\.js$/ }, () => ({
      contents: "import data from '../data/caniemail.json';\nexport const caniEmailJson = data;\n",
      loader: 'js',
    }));
  },
};

/** The folder of the package a bundled file belongs to (the nearest package.json with a name). */
function packageRoot(file: string): string | null {
  let dir = dirname(file);
  while (dir.startsWith(join(ROOT, 'node_modules'))) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name) return dir;
    dir = dirname(dir);
  }
  return null;
}

/** Bundles caniemail into vendor/, with the licences of everything bundled. */
export async function buildVendor(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const result = await build({
    entryPoints: [join(ROOT, 'node_modules/caniemail/dist/index.js')],
    outfile: join(OUT, 'caniemail.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    plugins: [jsonData],
    banner: {
      // The CommonJS parts (micromatch) require Node's built-ins: an ES module has no `require` of its own.
      js: [
        '// caniemail (MIT, https://github.com/shellscape/caniemail) and its dependencies, bundled by scripts/build-vendor.ts; licences in caniemail.LICENSES.txt',
        "import { createRequire as __inboxkitCreateRequire } from 'node:module';",
        'const require = __inboxkitCreateRequire(import.meta.url);',
      ].join('\n'),
    },
  });
  const packages = new Map<string, string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const dir = packageRoot(join(ROOT, input));
    if (!dir || packages.has(dir)) continue;
    const { name, version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
    const licenceFile = readdirSync(dir).find((f) => /^(licen[sc]e|copying)/i.test(f));
    const text = licenceFile ? readFileSync(join(dir, licenceFile), 'utf8').trim() : `(${license ?? 'licence not stated'}; the package ships no licence file)`;
    packages.set(dir, `${name}@${version} — ${license ?? 'no licence field'}\n\n${text}\n`);
  }
  const header = 'Third-party code bundled into caniemail.js (scripts/build-vendor.ts), with its licences.\n';
  writeFileSync(join(OUT, 'caniemail.LICENSES.txt'), [header, ...[...packages.values()].sort()].join(`\n${'='.repeat(72)}\n\n`));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildVendor();
