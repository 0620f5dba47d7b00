/**
 * On a Node.js older than `engines.node`, the CLI, the fixtures (a Playwright
 * config that imports `inboxkit/playwright`) and `inboxkit/server` stop at once
 * with one line naming the running and the required version. Run with the
 * machine's own older Node.js (Debian's /usr/bin/node, say) when there is one;
 * skipped, saying why, when there is none. Uses the built dist/ (`npm test`
 * builds it first), as an installed package does.
 */
import { test, expect } from '@playwright/test';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { satisfiesNodeRange } from '../../../src/runtime/node-version.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const range = (JSON.parse(execFileSync(process.execPath, ['-p', 'JSON.stringify(require("./package.json").engines)'], { cwd: REPO, encoding: 'utf8' })) as { node: string }).node;

/** A `node` on the PATH, outside any node_modules, whose version is below the range; or why there is none. */
function findOldNode(): { path: string; version: string } | { reason: string } {
  const seen: string[] = [];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/bin', '/usr/local/bin'])) {
    if (dir === '' || dir.includes('node_modules')) continue;
    const candidate = path.join(dir, 'node');
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '');
    seen.push(`${candidate} ${version}`);
    if (version !== '' && !satisfiesNodeRange(version, range)) return { path: candidate, version };
  }
  return { reason: `no Node.js outside ${range} on this machine (found: ${seen.join(', ') || 'none outside node_modules'})` };
}

const old = findOldNode();
const ONE_LINE = (version: string) => new RegExp(`inboxkit needs Node\\.js ${range.replace(/[|^.>=]/g, '\\$&')}, but this is Node\\.js ${version.replace(/\./g, '\\.')} \\([^)]+\\)\\. Install a current LTS release`);

test.describe('on an unsupported Node.js', () => {
  test.skip('reason' in old, 'reason' in old ? old.reason : '');
  const node = 'path' in old ? old : { path: '', version: '' };

  test.beforeAll(() => {
    if (!existsSync(path.join(REPO, 'dist/runtime/node-check.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it first).');
  });

  test('the inboxkit command prints one line naming both versions and exits 1', () => {
    const result = spawnSync(node.path, [path.join(REPO, 'bin/inboxkit.js'), 'serve', '--port', '0', '--smtp-port', '0'], { encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(ONE_LINE(node.version));
  });

  test('a Playwright config that imports inboxkit/playwright fails with that line, not inside a dependency', () => {
    // Inside the repository, so that the config resolves inboxkit/playwright as the package itself.
    mkdirSync(path.join(REPO, '.tmp'), { recursive: true });
    const dir = mkdtempSync(path.join(REPO, '.tmp', 'old-node-'));
    try {
      writeFileSync(
        path.join(dir, 'playwright.config.ts'),
        "import { defineConfig, inboxkitServer } from 'inboxkit/playwright';\nconst inboxkit = inboxkitServer({ port: 0, smtpPort: 0 });\nexport default defineConfig({ testDir: '.', use: { ...inboxkit.use } });\n",
      );
      writeFileSync(path.join(dir, 'a.spec.ts'), "import { test } from 'inboxkit/playwright';\ntest('never runs', () => {});\n");
      const result = spawnSync(node.path, [path.join(REPO, 'node_modules/@playwright/test/cli.js'), 'test', '-c', path.join(dir, 'playwright.config.ts')], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, FORCE_COLOR: '0' },
      });
      expect(result.status).toBe(1);
      const output = result.stdout + result.stderr;
      expect(output).toMatch(ONE_LINE(node.version));
      expect(output).not.toMatch(/Cannot read properties|No such built-in module|node_modules\/undici/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('importing inboxkit/server or inboxkit fails with that line, before node:sqlite or undici load', () => {
    for (const entry of ['inboxkit/server', 'inboxkit']) {
      const result = spawnSync(node.path, ['--input-type=module', '-e', `import(${JSON.stringify(entry)}).catch((error) => { console.error(error.message); process.exit(3); })`], {
        cwd: REPO,
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.status, entry).toBe(3);
      expect(result.stderr.trimEnd().split('\n'), entry).toHaveLength(1);
      expect(result.stderr, entry).toMatch(ONE_LINE(node.version));
    }
  });
});
