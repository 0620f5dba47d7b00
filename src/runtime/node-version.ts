/**
 * The Node.js versions inboxkit runs on, read from `engines.node` in its
 * package.json, and the one-line message shown on any other.
 *
 * This file and `node-check.ts` run before anything else in every entry point,
 * on whatever Node.js the user has, so they are written in syntax that any
 * Node.js able to load an ES module parses (no `?.`, no `??`, no class fields)
 * and import nothing but `node:fs`. The range check is hand-written for the two
 * operators `engines.node` uses (`^x.y.z` and `>=x.y.z`, joined by `||`): a
 * semver library would itself be a dependency loaded before the check.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';

/** A version as three numbers. */
type Triple = [number, number, number];

function triple(text: string): Triple | null {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text.trim());
  if (match === null) return null;
  return [Number(match[1]), Number(match[2] || 0), Number(match[3] || 0)];
}

function compare(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Whether `version` (e.g. `'22.22.2'`) is in `range`, a `||` list of `^x.y.z`,
 * `>=x.y.z` or `x.y.z`. An alternative this check cannot read counts as met, so
 * an unusual range never locks a user out.
 */
export function satisfiesNodeRange(version: string, range: string): boolean {
  const current = triple(version);
  if (current === null) return true;
  const alternatives = range.split('||');
  for (let i = 0; i < alternatives.length; i++) {
    const part = (alternatives[i] as string).trim();
    const caret = part.charAt(0) === '^';
    const atLeast = part.slice(0, 2) === '>=';
    const floor = triple(caret ? part.slice(1) : atLeast ? part.slice(2) : part);
    if (floor === null) return true;
    if (caret && current[0] === floor[0] && compare(current, floor) >= 0) return true;
    if (atLeast && compare(current, floor) >= 0) return true;
    if (!caret && !atLeast && compare(current, floor) === 0) return true;
  }
  return false;
}

/** `engines.node` of inboxkit's package.json (next to `src/` and `dist/`), or `null` when it cannot be read. */
export function requiredNodeRange(): string | null {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    return pkg && pkg.engines && typeof pkg.engines.node === 'string' ? pkg.engines.node : null;
  } catch {
    return null;
  }
}

/**
 * The one-line message for a Node.js outside the range, or `null` when the
 * version is fine (or the range is unknown).
 *
 * @example
 * ```ts
 * nodeVersionProblem('20.20.2', '>=22.19.0');
 * // 'inboxkit needs Node.js >=22.19.0, but this is Node.js 20.20.2 (/usr/bin/node). Install …'
 * ```
 */
export function nodeVersionProblem(version: string, range: string | null, execPath?: string): string | null {
  if (range === null || satisfiesNodeRange(version, range)) return null;
  const where = execPath ? ` (${execPath})` : '';
  return (
    `inboxkit needs Node.js ${range}, but this is Node.js ${version}${where}. ` +
    'Install a current LTS release from https://nodejs.org/ or with your version manager (e.g. `nvm install --lts`), then run this again with it; ' +
    'or, without a version manager, add one to the project (`npm i -D node@24`): npm scripts and npx then run on it.'
  );
}
