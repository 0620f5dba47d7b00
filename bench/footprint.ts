/**
 * What installing inboxkit adds to a Playwright project: packs the checkout
 * (after `npm run build`), makes two fresh projects offline from npm's cache —
 * one with @playwright/test alone, one with @playwright/test and the tarball —
 * and prints the difference in megabytes and packages, then what each of
 * inboxkit's runtime dependencies brings with it (its own folder and the
 * packages only it pulls in).
 *
 *   npm run build && node bench/footprint.ts
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closure, ownSize } from '../tests/integration/consumer/footprint.ts';
import { createProject, pack } from '../tests/integration/consumer/project.ts';

/** Bytes on disk under `dir` (files' sizes), and how many package.json with a name and version it holds under node_modules. */
async function measure(dir: string): Promise<{ bytes: number; packages: Set<string> }> {
  let bytes = 0;
  const packages = new Set<string>();
  async function walk(current: string): Promise<void> {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        bytes += (await stat(full)).size;
        if (entry.name === 'package.json') {
          const rel = path.relative(dir, path.dirname(full));
          if (/(^|\/)node_modules\/(@[^/]+\/)?[^/@][^/]*$/.test(rel)) packages.add(rel);
        }
      }
    }
  }
  await walk(path.join(dir, 'node_modules'));
  return { bytes, packages };
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

const root = await mkdtemp(path.join(tmpdir(), 'inboxkit-footprint-'));
try {
  const packed = await pack(root);
  await createProject(packed, path.join(root, 'baseline'), { type: 'module', files: {}, extra: ['@playwright/test'], withoutInboxkit: true });
  await createProject(packed, path.join(root, 'with'), { type: 'module', files: {}, extra: ['@playwright/test'] });
  const base = await measure(path.join(root, 'baseline'));
  const withIt = await measure(path.join(root, 'with'));
  const added = [...withIt.packages].filter((p) => !base.packages.has(p));
  console.log(`@playwright/test alone: ${mb(base.bytes)} MB, ${base.packages.size} packages`);
  console.log(`with inboxkit:          ${mb(withIt.bytes)} MB, ${withIt.packages.size} packages`);
  console.log(`inboxkit adds:          ${mb(withIt.bytes - base.bytes)} MB, ${added.length} packages`);
  const project = path.join(root, 'with');
  const sizes = new Map<string, number>();
  for (const rel of withIt.packages) sizes.set(rel, await ownSize(path.join(project, rel)));
  const direct = Object.keys(packed.manifest.dependencies ?? {});
  const closures = new Map<string, Set<string>>();
  for (const name of [...direct, '@playwright/test']) closures.set(name, await closure(project, `node_modules/${name}`));
  const rows = direct.map((name) => {
    const mine = closures.get(name)!;
    const others = new Set([...closures].filter(([other]) => other !== name).flatMap(([, set]) => [...set]));
    const only = [...mine].filter((rel) => !others.has(rel));
    const bytes = only.reduce((sum, rel) => sum + (sizes.get(rel) ?? 0), 0);
    return { dependency: name, 'MB only it brings': mb(bytes), 'packages only it brings': only.length, 'MB with shared': mb([...mine].reduce((sum, rel) => sum + (sizes.get(rel) ?? 0), 0)) };
  });
  rows.sort((a, b) => Number(b['MB only it brings']) - Number(a['MB only it brings']));
  console.log(`inboxkit's own files: ${mb(sizes.get('node_modules/inboxkit') ?? 0)} MB`);
  console.table(rows);
} finally {
  await rm(root, { recursive: true, force: true });
}
