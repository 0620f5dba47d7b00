/**
 * The README's first command, as a new user runs it: `npm ci && npm run
 * examples` in a fresh clone that was never built, with nothing beside it (no
 * ../shared). What the clone is and why its node_modules may be a copy:
 * ./fresh-clone.ts. This run of the examples is the one `npm test` makes.
 */
import { test, expect } from '@playwright/test';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkInstallIsFaithful, cloneFiles, makeClone, runCommand } from './fresh-clone.ts';

/** The environment a user's shell would give: none of the outer test run's variables, CI as in CI. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(TEST_|PW_|PLAYWRIGHT_|npm_)/i.test(key) || key === 'NODE_OPTIONS' || key === 'FORCE_COLOR') continue;
    // The examples' spam check reads its scanner from INBOXKIT_SPAM_CHECK (as .ci/run sets it); nothing else of inboxkit's.
    if (key.startsWith('INBOXKIT_') && key !== 'INBOXKIT_SPAM_CHECK') continue;
    env[key] = value;
  }
  return { ...env, CI: '1', FORCE_COLOR: '0', NPM_CONFIG_UPDATE_NOTIFIER: 'false' };
}

// The example suite in Chromium (22 tests, two workers) beside the rest of `npm test`: about 1.5 minutes
// on a quiet 2-core machine, over 3 on a loaded one. Bounded at 12 minutes, then everything it started is ended.
const RUN_BUDGET_MS = 12 * 60_000;

// eslint-disable-next-line no-empty-pattern
test('a fresh clone that was never built, with nothing beside it, passes `npm run examples` as the README says', { tag: '@heavy' }, async ({}, testInfo) => {
  testInfo.setTimeout(RUN_BUDGET_MS + 2 * 60_000);
  const files = await cloneFiles();
  test.skip(files.length === 0, 'not a git checkout (or no git): a fresh clone cannot be made from it');
  const unfaithful = await checkInstallIsFaithful();
  expect(unfaithful, unfaithful ?? '').toBeNull();

  const parent = await mkdtemp(path.join(tmpdir(), 'inboxkit-fresh-clone-'));
  const clone = path.join(parent, 'inboxkit');
  try {
    await makeClone(clone);
    // Never built, and alone: no build output, no ../shared with the corpora.
    expect(existsSync(path.join(clone, 'dist')) || existsSync(path.join(clone, 'vendor'))).toBe(false);
    expect(await readdir(parent)).toEqual(['inboxkit']);

    const result = await runCommand('npm run examples', { cwd: clone, env: userEnv(), timeoutMs: RUN_BUDGET_MS });
    const log = testInfo.outputPath('npm-run-examples.log');
    await writeFile(log, result.output);
    await testInfo.attach('npm run examples (fresh clone)', { path: log, contentType: 'text/plain' });
    const summary = result.output.split('\n').filter((line) => /^\s+(\d+ (passed|failed|flaky|skipped|did not run)|\d+ error)/.test(line) || /^\s+examples\/.*›/.test(line));
    const tail = result.output.slice(-6000);
    expect(result.timedOut, `npm run examples did not end within ${RUN_BUDGET_MS / 60_000} minutes; its output ends:\n${tail}`).toBe(false);
    expect(result.status, `npm run examples failed in the fresh clone (${clone}):\n${summary.join('\n')}\n\nIts output ends:\n${tail}`).toBe(0);
    expect(summary.join('\n')).toMatch(/\d+ passed/);
    expect(summary.join('\n')).not.toMatch(/failed|flaky/);
    // What made it pass: `preexamples` bundled the compatibility data that only a build used to write.
    expect(existsSync(path.join(clone, 'vendor/caniemail.js'))).toBe(true);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});
