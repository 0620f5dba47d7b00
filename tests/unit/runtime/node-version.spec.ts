/**
 * The Node.js version check: the range comes from package.json's engines, and
 * the two operators it uses are read as npm reads them.
 */
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { nodeVersionProblem, requiredNodeRange, satisfiesNodeRange } from '../../../src/runtime/node-version.ts';

const engines = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;

test('the required range is package.json\'s engines.node, and the Node.js running the tests is in it', () => {
  expect(requiredNodeRange()).toBe(engines);
  expect(nodeVersionProblem(process.versions.node, requiredNodeRange())).toBeNull();
});

test('caret and at-least ranges joined by || are read as npm reads them', () => {
  const range = '^22.22.2 || ^24.15.0 || >=26.0.0';
  const table: Array<[string, boolean]> = [
    ['20.20.2', false],
    ['22.22.1', false],
    ['22.22.2', true],
    ['22.30.0', true],
    ['23.11.0', false],
    ['24.14.9', false],
    ['24.15.0', true],
    ['25.0.0', false],
    ['26.0.0', true],
    ['30.1.0', true],
  ];
  for (const [version, expected] of table) expect(satisfiesNodeRange(version, range), version).toBe(expected);
  expect(satisfiesNodeRange('22.18.0', '>=22.19.0')).toBe(false);
  expect(satisfiesNodeRange('22.19.0', '>=22.19.0')).toBe(true);
});

test('the message is one line naming the running and the required version, the binary and how to get another', () => {
  const message = nodeVersionProblem('20.20.2', '^22.22.2 || ^24.15.0', '/usr/bin/node');
  expect(message).toBe(
    'inboxkit needs Node.js ^22.22.2 || ^24.15.0, but this is Node.js 20.20.2 (/usr/bin/node). Install a current LTS release from https://nodejs.org/ or with your version manager (e.g. `nvm install --lts`), then run this again with it; or, without a version manager, add one to the project (`npm i -D node@24`): npm scripts and npx then run on it.',
  );
  expect(message).not.toContain('\n');
  // An unreadable range never locks anyone out.
  expect(nodeVersionProblem('20.20.2', null)).toBeNull();
});
