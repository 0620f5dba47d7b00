/**
 * The `inboxkit` command: `serve`, `mcp`, `keys create|list|revoke`, `openapi`. The only place
 * that reads the environment and decides exit codes.
 *
 * @packageDocumentation
 */
import { readFile } from 'node:fs/promises';
import { keys } from './keys.ts';
import { mcp } from './mcp.ts';
import { serve } from './serve.ts';
import { UsageError, parse } from './usage.ts';
import type { CliIo } from './usage.ts';

export type { CliIo } from './usage.ts';

const MAIN_HELP = `inboxkit: a local Disposable Inbox API (HTTP + SMTP) for testing email flows.

Usage:
  inboxkit serve [options]        Start the local service (see: inboxkit serve --help)
  inboxkit keys create [options]  Create an API key (label, caps) in the service's database
  inboxkit keys list [options]    List the API keys of the database (never the keys)
  inboxkit keys revoke [options]  Revoke an API key on every node
  inboxkit mcp [options]          Serve MCP over stdio for AI agents (see: inboxkit mcp --help)
  inboxkit openapi                Print the OpenAPI 3.1 document of the API
  inboxkit --help | --version
`;

const OPENAPI_HELP = `Usage: inboxkit openapi

Prints the OpenAPI 3.1 document of the API (the one served at /api/v1/openapi.json).
`;

async function openapi(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, {}, OPENAPI_HELP);
  if (values.help) {
    io.stdout(OPENAPI_HELP);
    return 0;
  }
  const { createApp, createServerContext, createSqliteStore, resolveConfig } = await import('../server/index.ts');
  const store = createSqliteStore();
  try {
    const app = createApp(createServerContext({ store, config: resolveConfig({}) }));
    const res = await app.request('/api/v1/openapi.json');
    io.stdout(`${JSON.stringify(await res.json(), null, 2)}\n`);
  } finally {
    await store.close();
  }
  return 0;
}

/** The package version, read from package.json next to src/ or dist/. */
async function version(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * Runs the command line and resolves with the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await main(process.argv.slice(2), process.env, { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) });
 * ```
 */
export async function main(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(rest, env, io);
      case 'mcp':
        return await mcp(rest, env, io);
      case 'keys':
        return await keys(rest, env, io);
      case 'openapi':
        return await openapi(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout(MAIN_HELP);
        return command === undefined ? 2 : 0;
      case '--version':
      case '-v':
        io.stdout(`${await version()}\n`);
        return 0;
      default:
        throw new UsageError(`unknown command "${command}".\n\n${MAIN_HELP}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`inboxkit: ${error.message}\n`);
      return 2;
    }
    // One line with one prefix, whether or not the message already names inboxkit.
    io.stderr(`inboxkit: ${(error as Error).message.replace(/^inboxkit: /, '')}\n`);
    return 1;
  }
}
