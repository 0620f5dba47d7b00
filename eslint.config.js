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
    { group: ['**/client', '**/client/**', '**/playwright', '**/playwright/**', 'inboxkit', 'inboxkit/*', 'undici', 'eventsource-parser', 'cheerio', '@playwright/*'], message: 'The server never imports the client or the Playwright layer.' },
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
  // --- extract and shared errors ---
  // Extraction is the lower layer under the client: it may import cheerio, its own
  // files and the shared error root, nothing else (the client imports it, never
  // the other way round). The shared error root imports nothing but its own folder.
  boundary(['src/extract/**'], [
    { regex: '^(?!(?:cheerio|\\./[^/]+|\\.\\./errors/[^/]+)$)', message: 'src/extract may import only cheerio, its own files and ../errors/ (the shared error root).' },
  ]),
  boundary(['src/errors/**'], [
    { regex: '^(?!\\./[^/]+$)', message: 'src/errors is the shared error root: it imports nothing outside its own folder.' },
  ]),
);
