/**
 * The API reference in docs/api is the one TypeDoc makes from the TSDoc of
 * the three entry points today (typedoc.json): generated again into a
 * temporary folder, it must equal the committed pages file for file. When an
 * export or its comment changes, `npm run docs` renews them.
 */
import { test, expect } from '@playwright/test';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function files(dir: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    found.set(path.relative(dir, full), await readFile(full, 'utf8'));
  }
  return found;
}

test('the API reference in docs/api is what TypeDoc makes from the sources now (else: npm run docs)', { tag: '@heavy' }, async () => {
  test.setTimeout(120_000);
  const out = await mkdtemp(path.join(tmpdir(), 'inboxkit-api-'));
  try {
    await promisify(execFile)(process.execPath, [path.join(root, 'node_modules/typedoc/bin/typedoc'), '--out', out, '--logLevel', 'Error'], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
    const fresh = await files(out);
    const committed = await files(path.join(root, 'docs/api'));
    expect(fresh.size).toBeGreaterThan(50);
    const stale = [...new Set([...fresh.keys(), ...committed.keys()])].filter((file) => fresh.get(file) !== committed.get(file)).sort();
    expect(stale, 'pages of docs/api that differ from the sources; run `npm run docs` and commit docs/api').toEqual([]);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
