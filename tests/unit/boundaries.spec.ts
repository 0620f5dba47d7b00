/**
 * The module boundaries hold: the lint configuration refuses an import across
 * them, so `npm test` fails on one.
 */
import { test, expect } from '@playwright/test';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function importErrors(file: string, specifier: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(`import { x } from '${specifier}';\nexport const y = x;\n`, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const refused: Array<[string, string]> = [
  ['src/server/routes/example.ts', '../../client/index.ts'],
  ['src/server/example.ts', 'inboxkit'],
  ['src/client/example.ts', '../server/index.ts'],
  ['src/client/example.ts', 'hono'],
  ['src/extract/example.ts', '../server/mail/sanitize.ts'],
  ['src/playwright/example.ts', '../server/index.ts'],
  ['src/playwright/example.ts', '../client/wait.ts'],
  ['src/wire/example.ts', '@hono/zod-openapi'],
  ['src/server/example.ts', '../viewer/main.ts'],
  ['src/viewer/example.ts', '../server/index.ts'],
  ['src/viewer/example.ts', 'node:fs'],
  ['src/viewer/example.ts', '../client/index.ts'],
];

for (const [file, specifier] of refused) {
  test(`${file} may not import ${specifier}`, async () => {
    expect(await importErrors(file, specifier)).toHaveLength(1);
  });
}

const allowed: Array<[string, string]> = [
  ['src/server/example.ts', '../wire/schemas.ts'],
  ['src/client/example.ts', '../wire/schemas.ts'],
  ['src/playwright/example.ts', '../client/index.ts'],
  ['src/viewer/example.ts', '../extract/index.ts'],
  ['src/viewer/example.ts', 'eventsource-parser'],
];

for (const [file, specifier] of allowed) {
  test(`${file} may import ${specifier}`, async () => {
    expect(await importErrors(file, specifier)).toEqual([]);
  });
}
