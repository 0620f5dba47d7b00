/**
 * `npm pack`'s prepack check: the build in dist/ and vendor/ must be newer than
 * every source it is made from, else packing stops and says to run
 * `npm run build`. Packing never builds inside the checkout itself (a build
 * rewrites dist/ while other processes, such as a running test suite, may be
 * reading it); `npm publish` builds first through `prepublishOnly`.
 *
 * @packageDocumentation
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(ROOT, 'dist/.build-stamp');

/** The newest modification time of the files under `dir`, with the file. */
function newest(dir: string): [number, string] {
  let best: [number, string] = [0, dir];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const candidate: [number, string] = entry.isDirectory() ? newest(path) : [statSync(path).mtimeMs, path];
    if (candidate[0] > best[0]) best = candidate;
  }
  return best;
}

if (!existsSync(stamp) || !existsSync(join(ROOT, 'vendor/caniemail.js'))) {
  console.error('prepack: there is no build to pack. Run `npm run build`, then pack again.');
  process.exit(1);
}
const built = statSync(stamp).mtimeMs;
const inputs = [newest(join(ROOT, 'src')), [statSync(join(ROOT, 'package-lock.json')).mtimeMs, 'package-lock.json'] as [number, string]];
const stale = inputs.find(([time]) => time > built);
if (stale) {
  console.error(`prepack: the build is older than ${stale[1].replace(ROOT, '')}. Run \`npm run build\`, then pack again.`);
  process.exit(1);
}
