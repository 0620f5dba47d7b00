/**
 * The package, not the repository: `npm pack`, install the tarball into fresh
 * projects offline (an ESM one and a CommonJS one), write the README's config
 * and spec there (tests/consumer-project, quoted by the README) and run them
 * with Playwright against the service the package starts; type-check them
 * with the project's own tsc.
 */
import { test, expect } from '@playwright/test';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { asPublished } from '../../support/published.ts';
import { printFigure } from '../../support/figures.ts';
import { installedSize } from './footprint.ts';
import { REPO, createProject, nodeEnv, pack, sh } from './project.ts';
import type { Packed } from './project.ts';

test.describe.configure({ mode: 'serial', timeout: 240_000 });

const SOURCES = path.join(REPO, 'tests/consumer-project');
const systemChromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** The project's own config wrapped with the machine's browser (Debian's chromium where installed). */
const CI_CONFIG = `import config from './playwright.config.ts';
export default {
  ...config,
  reporter: [['json']],
  use: { ...config.use, ${systemChromium ? `launchOptions: { executablePath: ${JSON.stringify(systemChromium)}, args: ['--no-sandbox', '--disable-gpu'] }` : ''} },
};
`;

const TSCONFIG = JSON.stringify({
  compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: ['node'] },
  include: ['playwright.config.ts', 'signup.spec.ts'],
});

let root = '';
let packed: Packed;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function projectFiles(): Promise<Record<string, string>> {
  return {
    'playwright.config.ts': asPublished(await readFile(path.join(SOURCES, 'playwright.config.ts'), 'utf8')),
    'signup.spec.ts': asPublished(await readFile(path.join(SOURCES, 'signup.spec.ts'), 'utf8')),
    'app.mjs': await readFile(path.join(SOURCES, 'app.mjs'), 'utf8'),
    'ci.config.ts': CI_CONFIG,
    'tsconfig.json': TSCONFIG,
  };
}

/** Runs the README's spec in the project with Playwright, and returns the JSON report's stats. */
async function runSpec(dir: string): Promise<{ expected: number; unexpected: number; errors: string }> {
  const env = nodeEnv({ PORT: String(await freePort()) });
  let stdout: string;
  try {
    ({ stdout } = await sh(process.execPath, ['node_modules/@playwright/test/cli.js', 'test', '-c', 'ci.config.ts', '--workers=1'], { cwd: dir, env }));
  } catch (error) {
    stdout = (error as Error).message;
  }
  const json = JSON.parse(stdout.slice(stdout.indexOf('{'), stdout.lastIndexOf('}') + 1)) as { stats: { expected: number; unexpected: number }; errors: unknown[]; suites: unknown[] };
  return { expected: json.stats.expected, unexpected: json.stats.unexpected, errors: JSON.stringify([json.errors, json.suites]).slice(0, 4000) };
}

// eslint-disable-next-line no-empty-pattern
test.beforeAll(async ({}, testInfo) => {
  testInfo.setTimeout(240_000);
  root = await mkdtemp(path.join(tmpdir(), 'inboxkit-consumer-'));
  packed = await pack(root);
});

test.afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

// About half a minute on a quiet machine (a pack, one offline install, two runs with a browser): left out of `npm run test:quick`.
test.describe('the packed package in a user\'s project', { tag: '@heavy' }, () => {
  test('the package ships the build, its sources for the source maps and a licence, and no install script', async () => {
    expect(packed.files).toEqual(expect.arrayContaining(['bin/inboxkit.js', 'dist/playwright/index.js', 'dist/playwright/index.d.ts', 'dist/runtime/node-check.js', 'src/playwright/index.ts', 'LICENSE', 'README.md', 'vendor/caniemail.js', 'vendor/caniemail.LICENSES.txt']));
    // No dev tooling in a user's install: the compatibility data is bundled (scripts/build-vendor.ts), not a dependency.
    expect(Object.keys(packed.manifest.dependencies ?? {})).not.toContain('caniemail');
    expect(packed.files.filter((file) => /^(tests|examples|bench)\//.test(file))).toEqual([]);
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(packed.manifest.scripts ?? {}, script).not.toHaveProperty(script);
    // Every source map names sources that are in the package, so stack frames and "go to definition" land on real files.
    const maps = packed.files.filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(10);
    const shipped = new Set(packed.files);
    for (const map of maps) {
      const { sources } = JSON.parse(await readFile(path.join(REPO, map), 'utf8')) as { sources: string[] };
      for (const source of sources) expect(shipped, `${map} → ${source}`).toContain(path.posix.join(path.posix.dirname(map), source));
    }
  });

  for (const type of ['module', 'commonjs'] as const) {
    // The ESM project installs the tarball with `npm ci --offline`; the CommonJS one gets a copy of that install (the install does not depend on `type`).
    test(`${type === 'module' ? 'a fresh ESM project installs the tarball offline and runs' : 'a CommonJS project with that install runs'} the README's config and spec against the service the package starts`, async () => {
      const dir = path.join(root, type);
      await createProject(packed, dir, { type, files: await projectFiles(), scripts: { start: 'node app.mjs' }, ...(type === 'commonjs' ? { sameInstallAs: path.join(root, 'module') } : {}) });
      const installed = JSON.parse(await readFile(path.join(dir, 'node_modules/inboxkit/package.json'), 'utf8')) as { scripts?: Record<string, string> };
      expect(installed.scripts ?? {}).not.toHaveProperty('prepare');
      // The service the config starts is the installed package's own command.
      const load =
        type === 'module'
          ? `import('inboxkit/playwright').then((m) => console.log(m.inboxkitServer({ port: 0, smtpPort: 0 }).webServer.command))`
          : `console.log(require('inboxkit/playwright').inboxkitServer({ port: 0, smtpPort: 0 }).webServer.command)`;
      const { stdout } = await sh(process.execPath, ['-e', load], { cwd: dir });
      expect(stdout).toContain(path.join(dir, 'node_modules/inboxkit/bin/inboxkit.js'));
      // The bundled compatibility data loads from the installed package (it is no dependency of its own).
      const compat =
        type === 'module'
          ? `import('inboxkit').then(async (m) => console.log(JSON.stringify((await m.checkCompatibility('<div style="display:flex">x</div>', ['outlook.windows'])).clients[0].unsupported.map((f) => f.slug))))`
          : `require('inboxkit').checkCompatibility('<div style="display:flex">x</div>', ['outlook.windows']).then((r) => console.log(JSON.stringify(r.clients[0].unsupported.map((f) => f.slug))))`;
      expect(JSON.parse((await sh(process.execPath, ['-e', compat], { cwd: dir })).stdout)).toContain('css-display-flex');

      const result = await runSpec(dir);
      expect(result, result.errors).toMatchObject({ expected: 1, unexpected: 0 });
    });

    test(`the README's config and spec type-check with the ${type === 'module' ? 'ESM' : 'CommonJS'} project's own tsc`, async () => {
      const dir = path.join(root, type);
      const { stdout, stderr } = await sh(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { cwd: dir });
      expect(stdout + stderr).toBe('');
    });
  }

  test('installed, inboxkit with everything it needs at run time takes at most 42 MB of a project (no dev tooling)', async () => {
    const { bytes, packages } = await installedSize(path.join(root, 'module'), 'inboxkit');
    const mb = (bytes / 1e6).toFixed(1);
    printFigure(`footprint: inboxkit and its dependencies take ${mb} MB in ${packages} packages`);
    expect(bytes, `inboxkit and its dependencies take ${mb} MB (${packages} packages); the bound is 42 MB. A part few users need can be an optional peer dependency loaded on first use (npm run footprint shows what each dependency brings).`).toBeLessThanOrEqual(42e6);
  });
});
