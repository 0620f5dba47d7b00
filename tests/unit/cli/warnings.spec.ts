/**
 * The `inboxkit` command keeps Node.js 22's "SQLite is an experimental
 * feature" notice off stderr and prints every other warning as Node.js does.
 * Checked in a real Node.js process, whose own warning printer is the one
 * replaced (the notice itself is emitted by hand: this Node.js may no longer
 * emit it).
 */
import { spawnSync } from 'node:child_process';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { isSqliteExperimentalWarning } from '../../../src/cli/warnings.ts';

const WARNINGS = pathToFileURL(fileURLToPath(new URL('../../../src/cli/warnings.ts', import.meta.url))).href;

function stderrOf(script: string): string {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_NO_WARNINGS: '', NODE_OPTIONS: '' } });
  expect(result.status, result.stderr).toBe(0);
  return result.stderr;
}

const EMIT = `
process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
process.emitWarning('the other thing is deprecated', 'DeprecationWarning', 'DEP0999');
process.emitWarning('WebSocket is an experimental feature', 'ExperimentalWarning');
`;

test('without the filter Node.js prints all three warnings, the SQLite notice among them', () => {
  const stderr = stderrOf(EMIT);
  expect(stderr).toContain('ExperimentalWarning: SQLite is an experimental feature');
  expect(stderr).toContain('DeprecationWarning: the other thing is deprecated');
});

test('with the filter the SQLite notice is gone and every other warning is printed as Node.js prints it', () => {
  const stderr = stderrOf(`import { quietSqliteWarning } from ${JSON.stringify(WARNINGS)};\nquietSqliteWarning(process);\n${EMIT}`);
  expect(stderr).not.toContain('SQLite');
  expect(stderr).toContain('[DEP0999] DeprecationWarning: the other thing is deprecated');
  expect(stderr).toContain('ExperimentalWarning: WebSocket is an experimental feature');
});

test('only an ExperimentalWarning that names SQLite counts as the notice', () => {
  const warning = (name: string, message: string) => Object.assign(new Error(message), { name });
  expect(isSqliteExperimentalWarning(warning('ExperimentalWarning', 'SQLite is an experimental feature and might change at any time'))).toBe(true);
  expect(isSqliteExperimentalWarning(warning('DeprecationWarning', 'SQLite something'))).toBe(false);
  expect(isSqliteExperimentalWarning(warning('ExperimentalWarning', 'Type Stripping is an experimental feature'))).toBe(false);
});
