/**
 * Measuring an installed project: the bytes of a package's own files and the
 * packages it needs at run time, as Node resolves them. Used by the consumer
 * test (the footprint bound) and `npm run footprint` (bench/footprint.ts).
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Bytes of a package's own files (its nested node_modules left out). */
export async function ownSize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? await ownSize(full) : entry.isFile() ? (await stat(full)).size : 0;
  }
  return total;
}

/** Where Node finds `name` from the package at `from` (relative to the project). */
function resolve(project: string, from: string, name: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = path.posix.join(dir, 'node_modules', name);
    if (existsSync(path.join(project, candidate, 'package.json'))) return candidate;
    if (dir === '' || dir === '.') return null;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at < 0 ? '' : dir.slice(0, at);
  }
}

/** A package and every package it needs at run time (dependencies and installed optional ones), by folder. */
export async function closure(project: string, start: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const rel = queue.pop()!;
    if (seen.has(rel)) continue;
    seen.add(rel);
    const manifest = JSON.parse(await readFile(path.join(project, rel, 'package.json'), 'utf8')) as { dependencies?: object; optionalDependencies?: object };
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const found = resolve(project, rel, dep);
      if (found) queue.push(found);
    }
  }
  return seen;
}

/** Bytes a package brings into a project: its own files and those of every package it needs. */
export async function installedSize(project: string, name: string): Promise<{ bytes: number; packages: number }> {
  const needed = await closure(project, `node_modules/${name}`);
  let bytes = 0;
  for (const rel of needed) bytes += await ownSize(path.join(project, rel));
  return { bytes, packages: needed.size };
}
