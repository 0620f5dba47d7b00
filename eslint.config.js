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

/** The client's own boundary (repeated by the client-and-playwright rules below). */
const clientBoundary = {
  group: ['**/server', '**/server/**', '**/playwright', '**/playwright/**', '**/mcp', '**/mcp/**', '@modelcontextprotocol/*', 'inboxkit/*', 'hono', 'hono/*', '@hono/*', 'smtp-server', 'mailparser', 'jsdom', 'dompurify', 'nodemailer', 'node:sqlite', '@playwright/*'],
  message: 'The client never imports the server or the Playwright layer.',
};

/** The client's root files (src/client/*.ts) sit above its folders: a folder never imports one (`except`: a lookahead for names another pattern refuses). */
const clientRootFiles = (except = '') => ({
  regex: `^\\.\\./${except}[^/]+$`,
  message: 'The client\'s folders never import its root files (src/client/*.ts), which sit above them (docs/architecture.md).',
});

/** The client's folders under the waits → the folders of the client each may not import. */
const clientLayers = {
  core: ['internal', 'message', 'stream', 'wait'],
  internal: ['message', 'stream', 'wait'],
  message: ['internal', 'stream', 'wait'],
  stream: ['message', 'wait'],
};

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
      'max-lines-per-function': ['error', { max: 120 }],
    },
  },
  boundary(['src/server/**'], [
    { group: ['**/client', '**/client/**', '**/playwright', '**/playwright/**', '**/viewer/**', '**/mcp', '**/mcp/**', '@modelcontextprotocol/*', 'inboxkit', 'inboxkit/*', 'undici', 'eventsource-parser', 'cheerio', '@playwright/*'], message: 'The server never imports the client, the Playwright layer or the viewer (it serves the viewer\'s built files).' },
  ]),
  boundary(['src/viewer/**'], [
    { group: ['**/server', '**/server/**', '**/playwright', '**/playwright/**', '**/client/*', '!**/client/core', '**/client/core/*', '!**/client/core/errors.ts', '!**/client/client-profile.ts', '!**/client/message', '**/client/message/*', '!**/client/message/compatibility.ts', 'hono', 'hono/*', '@hono/*', 'smtp-server', 'mailparser', 'jsdom', 'dompurify', 'node:*', 'undici', '@playwright/*'], message: 'The viewer runs in the browser: it talks to the API over fetch and may use src/extract, the wire types, the client\'s errors and its pure compatibility and client-profile code (src/client/message/compatibility.ts, src/client/client-profile.ts), nothing of the server or Node.' },
  ]),
  boundary(['src/client/**', 'src/extract/**'], [
    { group: ['**/server', '**/server/**', '**/playwright', '**/playwright/**', '**/mcp', '**/mcp/**', '@modelcontextprotocol/*', 'inboxkit/*', 'hono', 'hono/*', '@hono/*', 'smtp-server', 'mailparser', 'jsdom', 'dompurify', 'nodemailer', 'node:sqlite', '@playwright/*'], message: 'The client never imports the server or the Playwright layer.' },
  ]),
  boundary(['src/playwright/**'], [
    { group: ['**/server', '**/server/**', '**/wire/**', '**/extract/**', '**/mcp', '**/mcp/**', '**/client/*', '!**/client/index.ts', '!**/client/internals.ts', 'hono', 'hono/*', '@hono/*', 'smtp-server', 'mailparser', 'jsdom', 'dompurify', 'node:sqlite'], message: 'The Playwright layer uses the client\'s public API (src/client/index.ts) and its private door for the fixtures (src/client/internals.ts), nothing else of the client.' },
  ]),
  boundary(['src/wire/**'], [
    { group: ['**/server/**', '**/client/**', '**/playwright/**', '**/extract/**', 'hono', 'hono/*', '@hono/*'], message: 'The wire schemas depend on zod alone.' },
  ]),
  // --- client and playwright ---
  // The waits (src/client/wait) know the inbox only as a WaitSource: they never import the
  // inbox handle, and the rest of the client reaches them only through wait/index.ts. A later
  // rule for the same files replaces an earlier one, so each repeats the client's own boundary.
  {
    files: ['src/client/wait/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [clientBoundary, clientRootFiles('(?!inbox-handle(?:\\.ts)?$)'), { group: ['**/inbox-handle.ts', '**/inbox-handle'], message: 'The waits never import the inbox handle: they see the inbox as a WaitSource (src/client/wait/source.ts).' }] }],
    },
  },
  {
    files: ['src/client/**'],
    ignores: ['src/client/wait/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [clientBoundary, { group: ['**/wait/*', '!**/wait/index.ts'], message: 'The rest of the client uses the waits through src/client/wait/index.ts only.' }] }],
    },
  },
  // The client's folders below its root files, in layers (docs/architecture.md): core/ imports
  // nothing else of the client, internal/ and message/ only core/, stream/ core/ and internal/.
  ...Object.entries(clientLayers).map(([folder, refused]) => ({
    files: [`src/client/${folder}/**`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [clientBoundary, clientRootFiles(), { group: refused.flatMap((f) => [`**/${f}`, `**/${f}/**`]), message: `src/client/${folder} imports no ${refused.map((f) => `${f}/`).join(', ')} of the client (docs/architecture.md).` }] }],
    },
  })),
  // --- server layers and cli ---
  ...serverLayersAndCli(),
  // --- extract and shared errors ---
  // Extraction is the lower layer under the client: it may import cheerio, its own
  // files and the shared error root, nothing else (the client imports it, never
  // the other way round). The shared error root imports nothing but its own folder.
  boundary(['src/extract/**'], [
    { regex: '^(?!(?:cheerio|\\./[^/]+|\\.\\./errors/[^/]+)$)', message: 'src/extract may import only cheerio, its own files and ../errors/ (the shared error root).' },
  ]),
  // The MCP server is a client of the API like the Playwright layer: the client's public API,
  // zod for its tool schemas, the MCP SDK (an optional peer dependency, loaded on first use)
  // and Node built-ins; never the server.
  boundary(['src/mcp/**'], [
    { regex: '^(?!(?:node:[a-z_/]+|zod|@modelcontextprotocol/sdk/[a-zA-Z/]+\\.js|\\./[^/]+|\\.\\./client/(?:index|internals)\\.ts)$)', message: 'src/mcp may import only the client\'s public API (src/client/index.ts) and its private door (src/client/internals.ts), zod, @modelcontextprotocol/sdk, Node built-ins and its own files.' },
  ]),
  boundary(['src/runtime/**'], [
    { regex: '^(?!(?:node:[a-z_/]+|\\./[^/]+)$)', message: 'src/runtime (the Node.js check every entry point runs first) imports nothing but Node built-ins and its own folder.' },
  ]),
  boundary(['src/errors/**'], [
    { regex: '^(?!\\./[^/]+$)', message: 'src/errors is the shared error root: it imports nothing outside its own folder.' },
  ]),
);

/**
 * The CLI and the server's own layers. These entries use
 * `@typescript-eslint/no-restricted-imports` (type-only imports included), a
 * rule apart from the `no-restricted-imports` of the boundary() entries above:
 * flat config replaces a rule's options when a later entry sets the same rule
 * for a file, so this way they add to the server-wide rule instead of
 * replacing it. Each entry's patterns include the composition-root rule,
 * for the same reason.
 */
function serverLayersAndCli() {
  const layerRule = (files, patterns, ignores = []) => ({
    files,
    ignores,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
  });
  const compositionRoot = {
    group: ['**/start.ts', '**/app.ts', '**/server/start.ts', '**/server/app.ts'],
    message: 'The composition root (src/server/start.ts, src/server/app.ts) is imported by nothing inside src/server but index.ts: take what you need as an argument.',
  };
  /** Folders of src/server and the folders each must never import (it sits below them). */
  const layers = {
    storage: ['routes', 'smtp', 'http', 'auth', 'events', 'forward', 'mail', 'context', 'streams'],
    events: ['routes', 'smtp', 'http', 'auth', 'forward', 'mail', 'context', 'streams'],
    mail: ['routes', 'smtp', 'http', 'auth', 'events', 'forward', 'context', 'streams'],
    forward: ['routes', 'smtp', 'http', 'auth', 'events', 'mail', 'context', 'storage', 'streams'],
    http: ['routes', 'smtp', 'auth', 'events', 'forward', 'mail', 'context', 'streams'],
    auth: ['routes', 'smtp', 'events', 'forward', 'mail', 'context', 'streams'],
    context: ['routes', 'smtp', 'forward', 'mail', 'http', 'streams'],
    smtp: ['routes', 'http', 'auth', 'streams'],
    // One SSE connection type and the two streams' policies: below the routes, above what they read.
    streams: ['routes', 'smtp', 'forward', 'mail', 'faults', 'static'],
    routes: ['smtp', 'forward'],
    // The per-inbox delivery faults: a table in the store that the SMTP intake and the routes consult.
    faults: ['routes', 'smtp', 'http', 'auth', 'forward', 'mail', 'context', 'static', 'streams'],
    // The spam scanners' clients (spamd, Rspamd): a leaf that the context builds and the routes call.
    spam: ['routes', 'smtp', 'http', 'auth', 'events', 'forward', 'mail', 'context', 'storage', 'faults', 'static', 'streams'],
    // The sender-authentication check (mailauth over a test DNS): a leaf the routes call.
    checks: ['routes', 'smtp', 'http', 'auth', 'events', 'forward', 'mail', 'context', 'storage', 'faults', 'static', 'streams', 'spam'],
    // The SMS intake and the providers' wire formats (Twilio, AWS SNS, Vonage): below the routes that serve them.
    sms: ['routes', 'smtp', 'http', 'auth', 'forward', 'mail', 'context', 'static', 'streams', 'faults', 'spam', 'checks'],
    // The viewer's built files on disk: below everything that handles a request.
    static: ['routes', 'smtp', 'http', 'auth', 'events', 'forward', 'mail', 'context', 'storage', 'faults', 'streams', 'checks'],
  };
  return [
    layerRule(['src/server/**'], [compositionRoot], ['src/server/index.ts', 'src/server/start.ts', 'src/server/app.ts']),
    ...Object.entries(layers).map(([layer, forbidden]) =>
      layerRule([`src/server/${layer}/**`], [
        compositionRoot,
        {
          // `…/folder/**` only: a bare `**/http` or `**/events` would also refuse the Node modules of those names.
          group: forbidden.map((f) => `**/${f}/**`),
          message: `src/server/${layer} sits below ${forbidden.join(', ')}: it may not import them.`,
        },
      ]),
    ),
    // Storage inside: the dialects implement the contract and never import the factories
    // (sqlite.ts, postgres.ts) above them or each other; the contract imports neither.
    ...[
      ['src/server/storage/sqlite/**', ['**/sqlite.ts', '**/postgres.ts', '**/postgres/**'], 'The SQLite dialect imports the storage contract (../contract/) and its own files only.'],
      ['src/server/storage/postgres/**', ['**/sqlite.ts', '**/postgres.ts', '**/sqlite/**'], 'The PostgreSQL dialect imports the storage contract (../contract/) and its own files only.'],
      ['src/server/storage/contract/**', ['**/sqlite.ts', '**/postgres.ts', '**/sqlite/**', '**/postgres/**'], 'The storage contract imports no dialect and no factory.'],
    ].map(([files, group, message]) =>
      layerRule([files], [compositionRoot, { group: layers.storage.map((f) => `**/${f}/**`), message: `src/server/storage sits below ${layers.storage.join(', ')}: it may not import them.` }, { group, message }]),
    ),
    layerRule(['src/cli/**'], [
      {
        regex: '^(?!node:|\\.{1,2}/)',
        message: 'The CLI depends on Node built-ins and inboxkit/server\'s public API only; no other package.',
      },
      {
        group: ['**/client', '**/client/**', '**/playwright', '**/playwright/**', '**/extract', '**/extract/**', '**/server/*', '!**/server/index.ts', '**/wire/*', '!**/wire/defaults.ts', '**/mcp/*', '!**/mcp/index.ts'],
        message: 'The CLI uses only inboxkit/server\'s public API (src/server/index.ts) and the MCP server\'s (src/mcp/index.ts), plus the shared defaults in src/wire/defaults.ts.',
      },
    ]),
  ];
}
