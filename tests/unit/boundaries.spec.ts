/**
 * The module boundaries hold: lint's `inboxkit/deps` rule refuses an import
 * that the nearest `DEPS.list` does not allow (scripts/deps.js), so `npm test`
 * fails on one.
 */
import { test, expect } from '@playwright/test';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function importErrors(file: string, specifier: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(`import { x } from '${specifier}';\nexport const y = x;\n`, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'inboxkit/deps').map((m) => m.message);
}

const refused: Array<[string, string]> = [
  ['src/server/routes/example.ts', '../../client/index.ts'],
  ['src/server/example.ts', 'inboxkit'],
  ['src/client/example.ts', '../server/index.ts'],
  ['src/client/example.ts', 'hono'],
  ['src/extract/example.ts', '../server/mail/sanitize.ts'],
  ['src/playwright/example.ts', '../server/index.ts'],
  ['src/playwright/example.ts', '../client/wait.ts'],
  ['src/playwright/example.ts', '../client/core/call-site.ts'],
  ['src/wire/example.ts', '@hono/zod-openapi'],
  ['src/server/example.ts', '../viewer/main.ts'],
  ['src/viewer/example.ts', '../server/index.ts'],
  ['src/viewer/example.ts', 'node:fs'],
  ['src/viewer/example.ts', '../client/index.ts'],
  ['src/viewer/example.ts', '../client/core/types.ts'],
  ['src/viewer/example.ts', '../client/message/received.ts'],
  ['src/viewer/example.ts', '../client/render-html.ts'],
  ['src/mcp/example.ts', '../server/index.ts'],
  ['src/mcp/example.ts', '../client/client.ts'],
  ['src/mcp/example.ts', '../extract/index.ts'],
  ['src/mcp/example.ts', 'hono'],
  ['src/server/example.ts', '../mcp/index.ts'],
  ['src/server/http/example.ts', '@modelcontextprotocol/sdk/server/mcp.js'],
  ['src/client/example.ts', '../mcp/index.ts'],
  ['src/playwright/example.ts', '../mcp/index.ts'],
];

for (const [file, specifier] of refused) {
  test(`${file} may not import ${specifier}`, async () => {
    expect(await importErrors(file, specifier)).toHaveLength(1);
  });
}

const allowed: Array<[string, string]> = [
  ['src/server/example.ts', '../wire/schemas.ts'],
  ['src/client/example.ts', '../wire/schemas.ts'],
  ['src/playwright/example.ts', '../client/index.ts'],
  ['src/playwright/example.ts', '../client/internal/criteria.ts'],
  ['src/playwright/example.ts', '../checks/render-source.ts'],
  ['src/viewer/example.ts', '../extract/index.ts'],
  ['src/viewer/example.ts', '../client/core/errors.ts'],
  ['src/viewer/example.ts', '../checks/compatibility.ts'],
  ['src/viewer/example.ts', '../checks/client-profile.ts'],
  ['src/viewer/example.ts', 'eventsource-parser'],
  ['src/mcp/example.ts', '../client/index.ts'],
  ['src/mcp/example.ts', '@modelcontextprotocol/sdk/server/mcp.js'],
  ['src/mcp/example.ts', 'zod'],
  ['src/mcp/example.ts', 'node:crypto'],
];

for (const [file, specifier] of allowed) {
  test(`${file} may import ${specifier}`, async () => {
    expect(await importErrors(file, specifier)).toEqual([]);
  });
}

test.describe('client and playwright', () => {
  const refusedHere: Array<[string, string]> = [
    ['src/client/wait/example.ts', '../inbox-handle.ts'],
    ['src/client/wait/example.ts', '../../server/index.ts'],
    ['src/client/example.ts', './wait/run.ts'],
    ['src/client/internal/example.ts', '../wait/feed.ts'],
    ['src/client/wait/example.ts', '../client.ts'],
    ['src/client/internal/example.ts', '../errors.ts'],
    ['src/client/core/example.ts', '../internal/transport.ts'],
    ['src/client/message/example.ts', '../stream/stream.ts'],
    ['src/client/stream/example.ts', '../wait/index.ts'],
    ['src/client/message/example.ts', '../../server/index.ts'],
    ['src/client/example.ts', '../server/index.ts'],
  ];
  for (const [file, specifier] of refusedHere) {
    test(`${file} may not import ${specifier}`, async () => {
      expect(await importErrors(file, specifier)).toHaveLength(1);
    });
  }

  const allowedHere: Array<[string, string]> = [
    ['src/client/example.ts', './wait/index.ts'],
    ['src/client/wait/example.ts', './feed.ts'],
    ['src/client/wait/example.ts', '../stream/stream.ts'],
    ['src/client/wait/example.ts', '../message/received.ts'],
    ['src/client/stream/example.ts', '../internal/sse.ts'],
    ['src/client/internal/example.ts', '../core/errors.ts'],
    ['src/client/core/example.ts', '../../errors/inboxkit-error.ts'],
    ['src/client/example.ts', './core/errors.ts'],
  ];
  for (const [file, specifier] of allowedHere) {
    test(`${file} may import ${specifier}`, async () => {
      expect(await importErrors(file, specifier)).toEqual([]);
    });
  }
});

test.describe('server layers and the CLI', () => {
  /** The messages of both import rules for a file that holds one import (`import type` when `typeOnly`). */
  async function refusals(file: string, specifier: string, typeOnly = false): Promise<string[]> {
    const eslint = new ESLint({ cwd: root });
    const code = typeOnly
      ? `import type { X } from '${specifier}';\nexport type Y = X;\n`
      : `import { x } from '${specifier}';\nexport const y = x;\n`;
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return (result?.messages ?? [])
      .filter((m) => m.ruleId === 'inboxkit/deps')
      .map((m) => m.message);
  }

  const layerRefused: Array<[string, string, string]> = [
    ['the CLI imports a server module other than its public index', 'src/cli/example.ts', '../server/start.ts'],
    ['the CLI imports the server store directly', 'src/cli/example.ts', '../server/storage/sqlite.ts'],
    ['the CLI imports a package', 'src/cli/example.ts', 'pino'],
    ['the CLI imports the client', 'src/cli/example.ts', '../client/index.ts'],
    ['the CLI imports an MCP module other than its public index', 'src/cli/example.ts', '../mcp/server.ts'],
    ['the CLI imports the MCP SDK', 'src/cli/example.ts', '@modelcontextprotocol/sdk/types.js'],
    ['storage imports a route', 'src/server/storage/example.ts', '../routes/inboxes.handlers.ts'],
    ['storage imports the SMTP intake', 'src/server/storage/sqlite/example.ts', '../../smtp/intake.ts'],
    ['storage imports the HTTP layer', 'src/server/storage/example.ts', '../http/errors.ts'],
    ['storage imports auth', 'src/server/storage/example.ts', '../auth/secrets.ts'],
    ['forwarding imports the SMTP intake', 'src/server/forward/example.ts', '../smtp/listener.ts'],
    ['a storage dialect imports the factory above it', 'src/server/storage/sqlite/example.ts', '../sqlite.ts'],
    ['a storage dialect imports the other dialect', 'src/server/storage/postgres/example.ts', '../sqlite/database.ts'],
    ['the storage contract imports a dialect', 'src/server/storage/contract/example.ts', '../postgres/database.ts'],
    ['the event stream core imports the SMTP intake', 'src/server/streams/example.ts', '../smtp/intake.ts'],
    ['the HTTP layer imports the event stream core', 'src/server/http/example.ts', '../streams/connection.ts'],
    ['auth imports the server context', 'src/server/auth/example.ts', '../context/context.ts'],
    ['a route imports the composition root', 'src/server/routes/example.ts', '../app.ts'],
    ['the sweeper imports the composition root', 'src/server/example.ts', './start.ts'],
    ['the analysis room imports the store', 'src/checks/example.ts', '../server/storage/contract/types.ts'],
    ['the analysis room imports the HTTP layer', 'src/checks/example.ts', '../server/http/errors.ts'],
    ['the analysis room imports the client', 'src/checks/example.ts', '../client/index.ts'],
    ['the viewer imports an analysis that needs Node', 'src/viewer/example.ts', '../checks/test-dns.ts'],
  ];
  for (const [what, file, specifier] of layerRefused) {
    test(`lint refuses it when ${what} (${file} → ${specifier})`, async () => {
      expect(await refusals(file, specifier)).toHaveLength(1);
    });
  }

  test('a type-only import of the composition root is refused too', async () => {
    expect(await refusals('src/server/context/example.ts', '../app.ts', true)).toHaveLength(1);
  });

  test('a type-only import across a layer is refused too', async () => {
    expect(await refusals('src/server/storage/example.ts', '../events/types.ts', true)).toHaveLength(1);
  });

  test('the server-wide rule still holds inside a layer that has its own rule', async () => {
    expect(await refusals('src/server/storage/example.ts', '../../client/index.ts')).toHaveLength(1);
  });

  const layerAllowed: Array<[string, string]> = [
    ['src/cli/example.ts', '../server/index.ts'],
    ['src/cli/example.ts', '../wire/defaults.ts'],
    ['src/cli/example.ts', '../mcp/index.ts'],
    ['src/cli/example.ts', 'node:util'],
    ['src/cli/example.ts', './usage.ts'],
    ['src/server/index.ts', './start.ts'],
    ['src/server/start.ts', './app.ts'],
    ['src/server/routes/example.ts', '../auth/visibility.ts'],
    ['src/server/smtp/example.ts', '../forward/forwarder.ts'],
    ['src/server/storage/sqlite/example.ts', '../contract/types.ts'],
    ['src/server/storage/example.ts', 'node:events'],
    ['src/checks/example.ts', 'mailauth'],
    ['src/checks/example.ts', '../wire/authentication-check.ts'],
    ['src/server/routes/example.ts', '../../checks/authentication.ts'],
  ];
  for (const [file, specifier] of layerAllowed) {
    test(`lint lets ${file} import ${specifier}`, async () => {
      expect(await refusals(file, specifier)).toEqual([]);
    });
  }
});

test.describe('extraction and the shared error root', () => {
  const refusedHere: Array<[string, string]> = [
    ['src/extract/example.ts', '../client/core/errors.ts'],
    ['src/extract/example.ts', '../client/index.ts'],
    ['src/extract/example.ts', '../wire/schemas.ts'],
    ['src/extract/example.ts', '../playwright/index.ts'],
    ['src/extract/example.ts', 'undici'],
    ['src/extract/example.ts', 'cheerio/lib/utils'],
    ['src/errors/example.ts', '../client/core/errors.ts'],
    ['src/errors/example.ts', '../extract/index.ts'],
    ['src/errors/example.ts', 'zod'],
  ];
  for (const [file, specifier] of refusedHere) {
    test(`${file} may not import ${specifier}`, async () => {
      expect(await importErrors(file, specifier)).toHaveLength(1);
    });
  }

  const allowedHere: Array<[string, string]> = [
    ['src/extract/example.ts', 'cheerio'],
    ['src/extract/example.ts', './links.ts'],
    ['src/extract/example.ts', '../errors/inboxkit-error.ts'],
    ['src/client/example.ts', '../errors/inboxkit-error.ts'],
    ['src/client/example.ts', '../extract/index.ts'],
    ['src/errors/example.ts', './other-error.ts'],
  ];
  for (const [file, specifier] of allowedHere) {
    test(`${file} may import ${specifier}`, async () => {
      expect(await importErrors(file, specifier)).toEqual([]);
    });
  }
});

test.describe('the Node.js check', () => {
  test('src/runtime may not import a package, which could fail on an old Node.js before the check speaks', async () => {
    expect(await importErrors('src/runtime/example.ts', 'undici')).toHaveLength(1);
  });
  test('src/runtime may not import the client', async () => {
    expect(await importErrors('src/runtime/example.ts', '../client/index.ts')).toHaveLength(1);
  });
  test('src/runtime may import Node built-ins and its own files', async () => {
    expect(await importErrors('src/runtime/example.ts', 'node:fs')).toEqual([]);
    expect(await importErrors('src/runtime/example.ts', './node-version.ts')).toEqual([]);
  });
});
