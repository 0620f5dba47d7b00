/**
 * The package's public surface is what its documentation names: every name
 * `src/client/index.ts` exports is mentioned in README.md or a page of
 * docs/, and the fixtures' private door (`src/client/internals.ts`) is not
 * one of the package's entry points.
 */
import { test, expect } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The names an index file exports through `export { … }` and `export type { … }` lists (re-exports included). */
function exportedNames(source: string): string[] {
  const names = new Set<string>();
  for (const [, list] of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of list!.split(',')) {
      const name = item.trim().split(/\s+as\s+/).pop()?.replace(/^type\s+/, '');
      if (name) names.add(name);
    }
  }
  for (const [, name] of source.matchAll(/export\s+(?:declare\s+)?(?:const|function|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g)) names.add(name!);
  return [...names].sort();
}

/** README.md and every docs/*.md page, as one text. */
function documentation(): string {
  const docs = path.join(root, 'docs');
  const pages = existsSync(docs) ? readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => readFileSync(path.join(docs, f), 'utf8')) : [];
  return [readFileSync(path.join(root, 'README.md'), 'utf8'), ...pages].join('\n');
}

const mentioned = (text: string, name: string) => new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);

test('every name the package root exports is documented in README.md or docs/', () => {
  const exported = exportedNames(readFileSync(path.join(root, 'src/client/index.ts'), 'utf8'));
  expect(exported.length).toBeGreaterThan(50);
  const text = documentation();
  const undocumented = exported.filter((name) => !mentioned(text, name));
  expect(undocumented, 'exports of src/client/index.ts that neither README.md nor docs/*.md mentions: document them, or move them to src/client/internals.ts').toEqual([]);
});

test('the check names an export nobody documented', () => {
  const exported = exportedNames("export { documentedThing, secretHelper as publicHelper } from './a.ts';\nexport type { Shape } from './b.ts';\nexport const VALUE = 1;");
  expect(exported).toEqual(['Shape', 'VALUE', 'documentedThing', 'publicHelper']);
  expect(exported.filter((name) => !mentioned('Use `documentedThing`, a `Shape` and VALUE.', name))).toEqual(['publicHelper']);
});

test('the fixtures\' private door is not an entry point of the package', () => {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const targets = JSON.stringify(pkg.exports);
  expect(targets).not.toContain('internals');
  expect(Object.keys(pkg.exports).sort()).toEqual(['.', './package.json', './playwright', './server']);
  // And the root does not hand out what the door holds.
  const exported = exportedNames(readFileSync(path.join(root, 'src/client/index.ts'), 'utf8'));
  const door = exportedNames(readFileSync(path.join(root, 'src/client/internals.ts'), 'utf8'));
  expect(door.filter((name) => exported.includes(name))).toEqual([]);
});
