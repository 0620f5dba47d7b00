/**
 * The package's public surface is what its documentation names: every name
 * an entry point (`src/client/index.ts`, `src/playwright/index.ts`,
 * `src/server/index.ts`) exports is mentioned in README.md or a page of
 * docs/; a client name that another entry re-exports says, in a comment, why
 * that entry has it; and nothing under an internal folder is an entry point
 * or reached through one.
 */
import { test, expect } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The package's entry points: the module `package.json` maps each to, and what the documentation calls it. */
const ENTRIES = [
  { entry: 'inboxkit', file: 'src/client/index.ts', least: 50 },
  { entry: 'inboxkit/playwright', file: 'src/playwright/index.ts', least: 40 },
  { entry: 'inboxkit/server', file: 'src/server/index.ts', least: 20 },
] as const;

/** The names an index file exports through `export { … }` and `export type { … }` lists (re-exports included) and its own declarations. */
function exportedNames(source: string): string[] {
  const names = new Set<string>();
  for (const [, list] of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of list!.split(',')) {
      const name = item.trim().split(/\s+as\s+/).pop()?.replace(/^type\s+/, '');
      if (name) names.add(name);
    }
  }
  for (const [, name] of source.matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(?:const|function|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g)) names.add(name!);
  return [...names].sort();
}

/** README.md and every docs/*.md page, as one text. */
function documentation(): string {
  const docs = path.join(root, 'docs');
  const pages = existsSync(docs) ? readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => readFileSync(path.join(docs, f), 'utf8')) : [];
  return [readFileSync(path.join(root, 'README.md'), 'utf8'), ...pages].join('\n');
}

const mentioned = (text: string, name: string) => new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);

/**
 * The re-export statements of an index that take names from `from` and are not
 * explained: neither preceded by a `//` comment line nor by another re-export
 * from the same module (a group under one comment). Each is given by its first line number.
 */
function unexplainedReExports(source: string, from: string): number[] {
  const lines = source.split('\n');
  const unexplained: number[] = [];
  const isReExport = (i: number) => new RegExp(`^export\\s+(?:type\\s+)?\\{[^}]*\\}\\s+from\\s+'${from.replace(/\./g, '\\.')}';`).test(lines[i] ?? '');
  for (let i = 0; i < lines.length; i++) {
    if (!isReExport(i)) continue;
    let j = i - 1;
    while (j >= 0 && isReExport(j)) j--;
    if (!/^\s*\/\/\s*\S/.test(lines[j] ?? '')) unexplained.push(i + 1);
  }
  return unexplained;
}

for (const { entry, file, least } of ENTRIES) {
  test(`every name ${entry} exports is documented in README.md or docs/`, () => {
    const exported = exportedNames(readFileSync(path.join(root, file), 'utf8'));
    expect(exported.length).toBeGreaterThan(least);
    const text = documentation();
    const undocumented = exported.filter((name) => !mentioned(text, name));
    expect(undocumented, `exports of ${file} (${entry}) that neither README.md nor docs/*.md mentions: document them in the guide of their feature, or stop exporting them`).toEqual([]);
  });
}

test('the check names an export nobody documented', () => {
  const exported = exportedNames("export { documentedThing, secretHelper as publicHelper } from './a.ts';\nexport type {\n  Shape,\n} from './b.ts';\nexport const VALUE = 1;\nexport async function load() {}");
  expect(exported).toEqual(['Shape', 'VALUE', 'documentedThing', 'load', 'publicHelper']);
  expect(exported.filter((name) => !mentioned('Use `documentedThing`, a `Shape`, `load()` and VALUE.', name))).toEqual(['publicHelper']);
});

test('every client name inboxkit/playwright re-exports comes with a comment on why the entry has it', () => {
  const source = readFileSync(path.join(root, 'src/playwright/index.ts'), 'utf8');
  expect(source, 'the Playwright entry re-exports names of the client').toContain("from '../client/index.ts';");
  expect(unexplainedReExports(source, '../client/index.ts'), 'lines of src/playwright/index.ts that re-export client names without a `//` comment above them saying why the entry has them').toEqual([]);
  // inboxkit/server never imports the client, so it has nothing of it to explain.
  expect(readFileSync(path.join(root, 'src/server/index.ts'), 'utf8')).not.toMatch(/from '\.\.\/client\//);
});

test('the re-export check finds a client name without its reason', () => {
  const source = [
    "export { a } from './a.ts';",
    '// So a test needs one import.',
    "export { b } from '../client/index.ts';",
    "export type { C } from '../client/index.ts';",
    "export { d } from './d.ts';",
    "export { e } from '../client/index.ts';",
  ].join('\n');
  expect(unexplainedReExports(source, '../client/index.ts')).toEqual([6]);
});

test('nothing internal is an entry point of the package or reached through one', () => {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  expect(JSON.stringify(pkg.exports)).not.toContain('internal');
  expect(Object.keys(pkg.exports).sort()).toEqual(['.', './package.json', './playwright', './server']);
  for (const { file } of ENTRIES) {
    const source = readFileSync(path.join(root, file), 'utf8');
    const sources = [...source.matchAll(/^export\s[^;]*?from\s+'([^']+)'/gm)].map(([, from]) => from!);
    expect(sources.filter((from) => /(^|\/)internals?(\/|\.ts$)/.test(from)), `${file} re-exports from an internal module`).toEqual([]);
  }
});
