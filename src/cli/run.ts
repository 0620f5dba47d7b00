/**
 * The `inboxkit` command: `serve`, `mcp`, `keys create`, `keys revoke`, `openapi`. The only place
 * that reads the environment and decides exit codes.
 *
 * @packageDocumentation
 */
import { readFile } from 'node:fs/promises';
import { mcp } from './mcp.ts';
import { serve } from './serve.ts';
import { UsageError, parse } from './usage.ts';
import type { CliIo } from './usage.ts';

export type { CliIo } from './usage.ts';

const MAIN_HELP = `inboxkit: a local Disposable Inbox API (HTTP + SMTP) for testing email flows.

Usage:
  inboxkit serve [options]        Start the local service (see: inboxkit serve --help)
  inboxkit keys create [options]  Create a user and an API key in a database file
  inboxkit keys revoke [options]  Revoke an API key in a database file
  inboxkit mcp [options]          Serve MCP over stdio for AI agents (see: inboxkit mcp --help)
  inboxkit openapi                Print the OpenAPI 3.1 document of the API
  inboxkit --help | --version
`;

const KEYS_HELP = `Usage: inboxkit keys create --db PATH [--email EMAIL]
       inboxkit keys revoke --db PATH --key tm_…

Creates a user on the premium plan and an API key in the database file, and prints
the key once on stdout (only its hash is stored). Start the server on the same file:
  inboxkit serve --db PATH

Options:
  --db PATH        SQLite database file (required; created if missing)
  --email EMAIL    The user's email; an existing user with it gets another key
                   (default: a new user with a generated address)
  --key KEY        (revoke) The API key to revoke
  -h, --help       Show this help

A revoked key is refused (401) at once by a server on the same file; the event
streams it opened end with "access.revoked" at their next keep-alive ping (15 s
by default). To end them at once, revoke through the running server instead:
DELETE /api/v1/me/api-key with the key.
`;

const OPENAPI_HELP = `Usage: inboxkit openapi

Prints the OpenAPI 3.1 document of the API (the one served at /api/v1/openapi.json).
`;

async function keys(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout(KEYS_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'create' && sub !== 'revoke') throw new UsageError(`unknown command "keys ${sub}".\n\n${KEYS_HELP}`);
  const { values } = parse(rest, { db: { type: 'string' }, email: { type: 'string' }, key: { type: 'string' } }, KEYS_HELP);
  if (values.help) {
    io.stdout(KEYS_HELP);
    return 0;
  }
  if (!values.db) {
    throw new UsageError(`keys ${sub} needs --db PATH: the database file the server uses (inboxkit serve --db PATH).`);
  }
  return sub === 'create' ? createKey(values.db, values.email, values.key, io) : revokeKey(values.db, values.email, values.key, io);
}

async function createKey(db: string, email: string | undefined, key: string | undefined, io: CliIo): Promise<number> {
  if (key !== undefined) throw new UsageError('keys create makes a new key and takes no --key; to revoke one, use keys revoke --db PATH --key KEY.');
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new UsageError(`--email must be an email address, got "${email}".`);
  }
  const { createSqliteStore, newApiKey, hashSecret } = await import('../server/index.ts');
  const store = createSqliteStore({ path: db });
  try {
    const address = email ?? `user-${hashSecret(String(Math.random())).slice(0, 10)}@users.inboxkit.test`;
    const user = (await store.findUserByEmail(address)) ?? (await store.createUser({ email: address, planId: 'premium' }));
    const created = newApiKey();
    await store.addApiKey(user.id, hashSecret(created));
    io.stdout(`${created}\n`);
    io.stderr(`Created an API key for ${user.email} (${user.id}) in ${db}. It is shown only now; the database keeps only its hash.\n`);
  } finally {
    await store.close();
  }
  return 0;
}

async function revokeKey(db: string, email: string | undefined, key: string | undefined, io: CliIo): Promise<number> {
  if (email !== undefined) throw new UsageError('keys revoke takes the key itself (--key tm_…), not --email.');
  if (key === undefined || !key.startsWith('tm_')) {
    throw new UsageError(`keys revoke needs --key with the API key to revoke (it starts with "tm_")${key === undefined ? '' : `, got "${key.slice(0, 8)}…"`}.`);
  }
  const { createSqliteStore, hashSecret } = await import('../server/index.ts');
  const store = createSqliteStore({ path: db });
  try {
    const revoked = await store.revokeApiKey(hashSecret(key));
    if (!revoked) {
      io.stderr(`inboxkit: no such API key in ${db} (already revoked, or made for another database). Nothing changed.\n`);
      return 1;
    }
    io.stderr(`Revoked the API key of user ${revoked.userId} in ${db}. Requests with it now get 401.\n`);
  } finally {
    await store.close();
  }
  return 0;
}

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
        return await keys(rest, io);
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
