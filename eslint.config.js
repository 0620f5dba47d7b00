// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries: server and client never import each other; the Playwright
 * layer uses only the client's public API; the wire schemas depend on zod alone.
 */
const boundary = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'examples/test-results/**', 'examples/playwright-report/**', '.tmp/**', 'bench/results/**'] },
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
  boundary(['src/server/**'], [
    { group: ['**/client', '**/client/**', '**/playwright', '**/playwright/**', '**/viewer/**', 'inboxkit', 'inboxkit/*', 'undici', 'eventsource-parser', 'cheerio', '@playwright/*'], message: 'The server never imports the client, the Playwright layer or the viewer (it serves the viewer\'s built files).' },
  ]),
  boundary(['src/viewer/**'], [
    { group: ['**/server', '**/server/**', '**/playwright', '**/playwright/**', '**/client/*', '!**/client/errors.ts', 'hono', 'hono/*', '@hono/*', 'smtp-server', 'mailparser', 'jsdom', 'dompurify', 'node:*', 'undici', '@playwright/*'], message: 'The viewer runs in the browser: it talks to the API over fetch and may use src/extract and the wire types, nothing of the server or Node.' },
  ]),
  boundary(['src/client/**', 'src/extract/**'], [
    { group: ['**/server', '**/server/**', '**/playwright', '**/playwright/**', 'inboxkit/*', 'hono', 'hono/*', '@hono/*', 'smtp-server', 'mailparser', 'jsdom', 'dompurify', 'nodemailer', 'node:sqlite', '@playwright/*'], message: 'The client never imports the server or the Playwright layer.' },
  ]),
  boundary(['src/playwright/**'], [
    { group: ['**/server', '**/server/**', '**/wire/**', '**/extract/**', '**/client/*', '!**/client/index.ts', 'hono', 'hono/*', '@hono/*', 'smtp-server', 'mailparser', 'jsdom', 'dompurify', 'node:sqlite'], message: 'The Playwright layer uses only the client\'s public API (src/client/index.ts).' },
  ]),
  boundary(['src/wire/**'], [
    { group: ['**/server/**', '**/client/**', '**/playwright/**', '**/extract/**', 'hono', 'hono/*', '@hono/*'], message: 'The wire schemas depend on zod alone.' },
  ]),
);
