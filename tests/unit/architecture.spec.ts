/**
 * The architecture docs/architecture.md describes holds: the folders of
 * `src/` import each other without a cycle (top-level folders and every
 * subfolder, at any depth, a folder's own files and its subfolders too), no
 * two files import each other in a circle, and each folder imports only the
 * folders that page says it may.
 */
import { test, expect } from '@playwright/test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { depsFor, refusal } from '../../scripts/deps.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const src = path.join(root, 'src');

/**
 * The unit of the graph: a top-level folder of src/, and for the server, each
 * of its own folders (its layers). Files directly in src/ or src/server/ are
 * their folder's composition root.
 */
function folderOf(file: string): string {
  const parts = path.relative(src, file).split(path.sep);
  if (parts.length === 1) return '(root)';
  if (parts[0] === 'server') return parts.length === 2 ? 'server' : `server/${parts[1]}`;
  return parts[0]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

/** Relative import specifiers of a file: static, type-only, re-exports and dynamic imports alike. */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(match[1]!);
  return found;
}

/** Folder → the folders it imports (itself excluded). */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(src)) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const specifier of relativeImports(file)) {
      const target = path.resolve(path.dirname(file), specifier);
      if (!target.startsWith(src + path.sep)) continue;
      const to = folderOf(target);
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/** Every cycle's path, found by depth-first search; empty when the graph is acyclic. */
function cycles(graph: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

test('the folders of src/ import each other without a cycle', () => {
  expect(cycles(folderGraph())).toEqual([]);
});

/**
 * Relative imports of a file that exist at run time: `import type` and
 * `export type`, and lists whose every name is `type`, are left out. They are
 * erased by the compiler, so they cannot make a module run before the one it
 * needs is initialised, which is what makes a circle between files dangerous;
 * types referring to each other across files are ordinary (a handle's type
 * names its client's, the client's names the handle's).
 */
function runtimeImportsOf(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*(?:from\s*)?['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    if (match[1]) continue;
    const names = /^\{([^}]*)\}$/.exec(match[2]!.trim())?.[1];
    if (names !== undefined && names.split(',').map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith('type '))) continue;
    found.push(match[3]!);
  }
  for (const match of text.matchAll(/\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(match[1]!);
  return found;
}

function runtimeImports(file: string): string[] {
  return runtimeImportsOf(readFileSync(file, 'utf8'));
}

/** File → the files of src/ it imports at run time. */
function fileGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(src)) {
    const edges = new Set<string>();
    for (const specifier of runtimeImports(file)) {
      const target = path.resolve(path.dirname(file), specifier);
      if (target.startsWith(src + path.sep)) edges.add(path.relative(src, target));
    }
    graph.set(path.relative(src, file), edges);
  }
  return graph;
}

/**
 * The folders a file is in, from src/ down. In every folder of src/ the
 * folder's own files count as one more folder, `(own)`, beside its
 * subfolders: a folder's files and its subfolders must not import each other
 * in a circle either (storage's factories sit above its dialect folders, which
 * import only its `contract/`; the client's root files above `wait/`,
 * `stream/`, `message/`, `internal/` and `core/`, which never import them).
 */
function partsOf(file: string): string[] {
  const parts = path.relative(src, path.dirname(file)).split(path.sep).filter(Boolean);
  return parts.length > 0 ? [...parts, '(own)'] : parts;
}

/** Every folder of src/ at any depth → the folders it imports, each import counted at every depth where the two sides differ. */
function nestedFolderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(src)) {
    const fromParts = partsOf(file);
    for (const specifier of relativeImports(file)) {
      const target = path.resolve(path.dirname(file), specifier);
      if (!target.startsWith(src + path.sep)) continue;
      const toParts = partsOf(target);
      // The folders that contain neither side's file: compare siblings under their common parent.
      let common = 0;
      while (common < fromParts.length && common < toParts.length && fromParts[common] === toParts[common]) common++;
      if (common === fromParts.length || common === toParts.length) continue; // one folder contains the other
      const from = fromParts.slice(0, common + 1).join('/');
      const to = toParts.slice(0, common + 1).join('/');
      const edges = graph.get(from) ?? new Set<string>();
      edges.add(to);
      graph.set(from, edges);
    }
  }
  return graph;
}

test('no two files of src/ import each other in a circle (type-only imports aside)', () => {
  expect(cycles(fileGraph())).toEqual([]);
});

test('no two sibling folders of src/ import each other in a circle, at any depth, a folder\'s own files counting as one (storage and its dialects, the server\'s layers, the client\'s root files and folders)', () => {
  expect(cycles(nestedFolderGraph())).toEqual([]);
});

test('a type-only import is not a run-time edge, a value import is', () => {
  const sample = [
    "import type { A } from './a.ts';",
    "import { type B, type C } from './b.ts';",
    "export type { D } from './d.ts';",
    "import { E } from './e.ts';",
    "import { type F, G } from './f.ts';",
    "export { H } from './h.ts';",
    "import './side-effect.ts';",
  ].join('\n');
  expect(runtimeImportsOf(sample)).toEqual(['./e.ts', './f.ts', './h.ts', './side-effect.ts']);
});

test('the cycle finder names a cycle when there is one', () => {
  const graph = new Map([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a'])],
  ]);
  expect(cycles(graph)).toEqual(['a → b → c → a']);
});

/** The architecture page (docs/architecture.md): its table (folder → what it may import) and its text. */
function readmeArchitecture(): { text: string; rows: Map<string, Set<string>> } {
  const text = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  expect(text.startsWith('# Architecture\n'), 'docs/architecture.md starts with its "# Architecture" heading').toBe(true);
  const rows = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const folder = /^`src\/([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!folder) continue;
    const may = new Set<string>();
    for (const [, token] of (cells[3] ?? '').matchAll(/`([^`]+)`/g)) {
      if (token!.startsWith('src/')) may.add(folderOf(path.join(src, token!.slice(4), token!.endsWith('.ts') ? '' : 'x.ts')));
      else if (folder.startsWith('server/') && /^[a-z]+$/.test(token!)) may.add(`server/${token}`);
    }
    rows.set(folder, may);
  }
  return { text, rows };
}

test('the architecture table of docs/architecture.md names every folder of src/ and every import between them', () => {
  const { rows } = readmeArchitecture();
  const graph = folderGraph();
  expect([...rows.keys()].sort()).toEqual([...graph.keys()].filter((f) => f !== '(root)').sort());
  const undeclared: string[] = [];
  for (const [from, edges] of graph) {
    for (const to of edges) {
      // The composition root composes every folder of the server.
      if (from === 'server' && to.startsWith('server/')) continue;
      if (!rows.get(from)?.has(to)) undeclared.push(`src/${from} imports src/${to}`);
    }
  }
  expect(undeclared, 'imports the architecture table of docs/architecture.md does not allow').toEqual([]);
});

/** Every import specifier of a file, relative or a package: static, type-only, re-exports and dynamic imports alike. */
function allImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/gm)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

test('every folder of src/ is under a DEPS.list, the one statement of what it may import', () => {
  const folders = new Set(sourceFiles(src).map((file) => path.dirname(file)));
  const without = [...folders].filter((dir) => depsFor(path.join(dir, 'x.ts'), src) === undefined).map((dir) => path.relative(root, dir));
  expect(without, 'folders with no DEPS.list in them or above them (up to src/)').toEqual([]);
});

test('every import of src/ is one its nearest DEPS.list allows (the lists lint reads)', () => {
  const refused: string[] = [];
  for (const file of sourceFiles(src)) {
    const deps = depsFor(file, src)!;
    for (const specifier of allImports(file)) {
      const why = refusal(deps, file, specifier);
      if (why) refused.push(`${path.relative(root, file)}: ${why}`);
    }
  }
  expect(refused).toEqual([]);
});

test('the architecture table of docs/architecture.md names for each folder the folders its DEPS.list allows', () => {
  const { rows } = readmeArchitecture();
  const mismatched: string[] = [];
  for (const [folder, may] of rows) {
    const deps = depsFor(path.join(src, folder, 'x.ts'), src);
    if (!deps) continue;
    const listed = new Set([...deps.folders, ...deps.files].map((target) => folderOf(target.endsWith(path.sep) ? path.join(target, 'x.ts') : target)).filter((f) => f !== folder));
    const extra = [...listed].filter((f) => !may.has(f));
    const missing = [...may].filter((f) => !listed.has(f));
    if (extra.length || missing.length) mismatched.push(`src/${folder}: DEPS.list allows ${extra.map((f) => `src/${f}`).join(', ') || 'nothing more'}; the table adds ${missing.map((f) => `src/${f}`).join(', ') || 'nothing more'}`);
  }
  expect(mismatched).toEqual([]);
});

test('a DEPS.list allows its own folder, what it names, and nothing else', () => {
  const list = path.join(src, 'checks', 'DEPS.list');
  const deps = depsFor(path.join(src, 'checks', 'x.ts'), src, (name) => (name === list ? '../errors/\n../wire/schemas.ts\ncheerio\nhono/*\n# a comment\n!./inner/\n./inner/index.ts\n!./root.ts <- ./index.ts\n' : undefined))!;
  const file = path.join(src, 'checks', 'x.ts');
  expect(refusal(deps, file, './y.ts')).toBeNull();
  expect(refusal(deps, file, '../errors/inboxkit-error.ts')).toBeNull();
  expect(refusal(deps, file, '../wire/schemas.ts')).toBeNull();
  expect(refusal(deps, file, 'cheerio')).toBeNull();
  expect(refusal(deps, file, 'cheerio/utils')).toContain('is not allowed here');
  expect(refusal(deps, file, 'hono/body-limit')).toBeNull();
  expect(refusal(deps, file, './inner/index.ts')).toBeNull();
  expect(refusal(deps, file, './inner/deep.ts')).toContain('only through inner/index.ts');
  expect(refusal(deps, path.join(src, 'checks', 'inner', 'a.ts'), './deep.ts')).toBeNull();
  expect(refusal(deps, file, './root.ts')).toContain('lets only index.ts import root.ts');
  expect(refusal(deps, path.join(src, 'checks', 'index.ts'), './root.ts')).toBeNull();
  expect(refusal(deps, file, '../wire/defaults.ts')).toContain('src/checks/DEPS.list');
  expect(refusal(deps, file, '../client/index.ts')).toContain('is not allowed here');
  expect(refusal(deps, file, 'node:fs')).toContain('is not allowed here');
});

test('every file docs/architecture.md names exists', () => {
  const { text } = readmeArchitecture();
  const missing = [...text.matchAll(/`(src\/[^`\s]+\.(?:ts|sql|css|html))`/g)].map((m) => m[1]!).filter((file) => {
    try {
      return !statSync(path.join(root, file)).isFile();
    } catch {
      return true;
    }
  });
  expect(missing).toEqual([]);
});

test('nothing inside the server imports its composition root but the package index', () => {
  const offenders = sourceFiles(path.join(src, 'server'))
    .filter((file) => !['index.ts', 'start.ts', 'app.ts'].includes(path.relative(path.join(src, 'server'), file)))
    .flatMap((file) =>
      relativeImports(file)
        .map((specifier) => path.relative(src, path.resolve(path.dirname(file), specifier)))
        .filter((target) => target === path.join('server', 'start.ts') || target === path.join('server', 'app.ts'))
        .map((target) => `${path.relative(root, file)} imports src/${target}`),
    );
  expect(offenders).toEqual([]);
});

test.describe('the size limits', () => {
  async function sizeErrors(code: string): Promise<string[]> {
    const { ESLint } = await import('eslint');
    const eslint = new ESLint({ cwd: root });
    const [result] = await eslint.lintText(code, { filePath: path.join(root, 'src/client/example.ts') });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'max-lines' || m.ruleId === 'max-lines-per-function').map((m) => m.ruleId!);
  }
  const lines = (n: number, line: string) => Array.from({ length: n }, (_, i) => line.replaceAll('#', String(i))).join('\n');

  test('lint refuses a file of library code over 400 lines', async () => {
    expect(await sizeErrors(`${lines(401, 'export const v# = #;')}\n`)).toEqual(['max-lines']);
  });

  test('lint refuses a function of library code over 100 lines', async () => {
    expect(await sizeErrors(`export function long(): number {\n  let n = 0;\n${lines(100, '  n += #;')}\n  return n;\n}\n`)).toEqual(['max-lines-per-function']);
  });

  test('lint accepts a function of 100 lines', async () => {
    expect(await sizeErrors(`export function fits(): number {\n  let n = 0;\n${lines(96, '  n += #;')}\n  return n;\n}\n`)).toEqual([]);
  });
});
