// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { depsRule } from './scripts/deps.js';

/**
 * The import rules of src/ are stated once, in a `DEPS.list` beside each
 * folder (scripts/deps.js reads them); the `inboxkit/deps` rule refuses what
 * the nearest list does not allow, and tests/unit/architecture.spec.ts reads
 * the same lists.
 */
const src = path.join(path.dirname(fileURLToPath(import.meta.url)), 'src');
const inboxkit = { rules: { deps: depsRule(src) } };

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'examples/test-results/**', 'examples/playwright-report/**', '.tmp/**', 'bench/results/**', 'vendor/**', '.corpora/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly', performance: 'readonly', fetch: 'readonly', Response: 'readonly', Request: 'readonly', Headers: 'readonly', crypto: 'readonly', document: 'readonly', window: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  // Size limits of the library code (issue 13): a function a newcomer can hold
  // in mind, a file one can read in a sitting.
  {
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 100 }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { inboxkit },
    rules: { 'inboxkit/deps': 'error' },
  },
);
