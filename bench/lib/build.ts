/**
 * Compiles the package into a private folder before the run, so that the
 * servers under test run as users run them (compiled JavaScript, as in the
 * published `dist/`), not through Node's TypeScript stripping, which costs
 * startup time and about 25 MB of memory.
 *
 * @packageDocumentation
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Builds src/ into `.tmp/bench-build-<pid>/` and returns that folder; `remove()` deletes it. */
export function buildPackage(): { dir: string; remove(): void } {
  const dir = join(ROOT, '.tmp', `bench-build-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', dir, '--declaration', 'false', '--declarationMap', 'false', '--sourceMap', 'false'],
      { cwd: ROOT, stdio: 'pipe' },
    );
  } catch (error) {
    // tsc still emits when another part of the tree has a type error; only a missing output is fatal.
    const out = (error as { stdout?: Buffer }).stdout?.toString() ?? '';
    if (!out.includes('error')) throw error;
    process.stderr.write(`bench: tsc reported type errors (the build is used all the same):\n${out.split('\n').slice(0, 5).join('\n')}\n`);
  }
  cpSync(join(ROOT, 'src/server/storage/migrations'), join(dir, 'server/storage/migrations'), { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
