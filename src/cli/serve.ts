/**
 * `inboxkit serve`: reads the flags through the table in `serve-flags.ts`,
 * starts the server through `inboxkit/server`'s public API, and runs until
 * SIGINT or SIGTERM.
 *
 * @packageDocumentation
 */
import type { McpHttpHandler } from '../mcp/index.ts';
import type { StartServerOptions } from '../server/index.ts';
import { isLoopbackHost } from '../wire/defaults.ts';
import { SERVE_FLAGS, TOGETHER, envNameOf, serveFlagsHelp } from './serve-flags.ts';
import { READY_PREFIX, UsageError, parse } from './usage.ts';
import type { CliIo } from './usage.ts';

/** Where `inboxkit serve` mounts the MCP server. */
const MCP_PATH = '/mcp';

/** The help of `inboxkit serve`. */
const SERVE_HELP = `Usage: inboxkit serve [options]

Starts the HTTP API (under /api/v1) and the SMTP intake. Binds 127.0.0.1 unless told otherwise.
Once listening it prints the URLs, then one line for scripts:
  ${READY_PREFIX}{"url":…,"apiUrl":…,"smtpHost":…,"smtpPort":…,"viewerUrl":…}
The web inbox viewer is at / on the HTTP port. Bound to loopback, the service makes a
new operator token at each start and prints the viewer URL with it (#key=tmo_…): that
link shows every inbox. Anywhere else, open the viewer with an inbox token or API key.
Every flag may also come from the environment: INBOXKIT_ and the flag in capitals
(--smtp-max-connections 200 is INBOXKIT_SMTP_MAX_CONNECTIONS=200; a switch takes true/false);
a flag on the command line wins.

${serveFlagsHelp()}`;

/** Sets `value` at a dotted path of `target`, making the objects on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() as string;
  let node = target;
  for (const key of keys) node = (node[key] ??= {}) as Record<string, unknown>;
  node[last] = value;
}

/**
 * Refuses two flags that set the same option (`--ttl`, the older name of `--inbox-ttl`,
 * and `--inbox-ttl`) when both are given, as flags or from the environment: one would
 * silently win over the other.
 */
function refuseTwoNamesForOne(values: Record<string, string | string[] | boolean | undefined>, env: Record<string, string | undefined>): void {
  const byOption = new Map<string, string[]>();
  for (const row of SERVE_FLAGS) {
    const name = envNameOf(row);
    const how = values[row.flag] !== undefined ? `--${row.flag}` : env[name] ? name : null;
    if (how !== null) byOption.set(row.option, [...(byOption.get(row.option) ?? []), how]);
  }
  for (const [option, given] of byOption) {
    if (given.length < 2) continue;
    const rows = SERVE_FLAGS.filter((row) => row.option === option);
    const older = rows.find((row) => /older name/i.test(row.help.join(' ')));
    const hint = older ? ` (--${older.flag} is ${older.help.join(' ').replace(/^The /, 'the ')})` : '';
    throw new UsageError(`${given.join(' and ')} set the same thing${hint}; give only one of them.`);
  }
}

/**
 * The server options the flags (and the environment variables the table names) ask for.
 *
 * @param values - The parsed flags, by flag name without `--`.
 * @param env - The environment; each flag's variable is {@link envNameOf}.
 */
export async function serveOptionsOf(values: Record<string, string | string[] | boolean | undefined>, env: Record<string, string | undefined>): Promise<Record<string, unknown>> {
  for (const group of TOGETHER) {
    const inEnv = (flag: string) => {
      const row = SERVE_FLAGS.find((r) => r.flag === flag);
      return row !== undefined && Boolean(env[envNameOf(row)]);
    };
    const given = group.flags.filter((flag) => values[flag] !== undefined || inEnv(flag));
    if (given.length > 0 && given.length < group.flags.length) throw new UsageError(group.message);
  }
  refuseTwoNamesForOne(values, env);
  const options: Record<string, unknown> = {};
  for (const row of SERVE_FLAGS) {
    const flag = `--${row.flag}`;
    const given = values[row.flag];
    const name = envNameOf(row);
    let value: unknown;
    if (row.switch) {
      const fromEnv = env[name];
      if (fromEnv !== undefined && !/^(1|true|yes|0|false|no)$/i.test(fromEnv)) throw new UsageError(`${name} must be true or false (1, 0, yes, no), got "${fromEnv}".`);
      value = given === true || /^(1|true|yes)$/i.test(fromEnv ?? '') ? await row.parse('', flag) : row.fallback;
    } else if (row.multiple) {
      const fromEnv = (env[name] ?? '').split(/[\s,]+/).filter(Boolean);
      const texts = [...((given as string[] | undefined) ?? []), ...fromEnv];
      value = given === undefined && fromEnv.length === 0 ? undefined : await Promise.all(texts.map((t) => row.parse(t, flag)));
    } else {
      const fromEnv = env[name];
      if (typeof given === 'string') value = await row.parse(given, flag);
      else if (fromEnv) value = await row.parse(fromEnv, name);
      else value = row.fallback;
    }
    if (value !== undefined) setPath(options, row.option, value);
  }
  return options;
}

/** Waits for SIGINT or SIGTERM. */
function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: string) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/**
 * The MCP endpoint, loaded on its first request: the MCP server, the client it
 * talks to the API with, and the MCP SDK. A service whose /mcp is never used
 * does not pay for them at start.
 */
function lazyMcpHandler(): McpHttpHandler {
  let loading: Promise<McpHttpHandler> | undefined;
  const load = () => (loading ??= import('../mcp/index.ts').then(({ createMcpHttpHandler }) => createMcpHttpHandler()));
  return {
    handle: async (request, info) => (await load()).handle(request, info),
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
}

/** Runs `inboxkit serve`; resolves with the exit code once stopped by a signal. */
export async function serve(args: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const flags = Object.fromEntries(
    SERVE_FLAGS.map((row) => [row.flag, row.switch ? { type: 'boolean' as const } : { type: 'string' as const, ...(row.multiple ? { multiple: true } : {}) }]),
  );
  const { values } = parse(args, flags, SERVE_HELP);
  if (values.help) {
    io.stdout(SERVE_HELP);
    return 0;
  }
  if (values['api-key'] !== undefined) {
    io.stderr('inboxkit: warning: --api-key shows the key to every user of this machine (ps, /proc); set INBOXKIT_API_KEYS in the environment instead.\n');
  }
  // `--no-operator-token` sets operatorToken to false; otherwise a loopback-bound service gets a new one.
  const { operatorToken: wanted, mcp: mcpWanted, ...options } = (await serveOptionsOf(values, env)) as Omit<StartServerOptions, 'operatorToken'> & { operatorToken?: false; mcp?: false };
  const { startServer, ConfigError, resolveConfig, newOperatorToken, redactUrl } = await import('../server/index.ts');
  const mcp = mcpWanted === false ? null : lazyMcpHandler();
  if (mcp) options.mounts = [{ path: MCP_PATH, handler: (request, info) => mcp.handle(request, info) }];
  let server;
  let operatorToken: string | undefined;
  try {
    // A new secret at every start: the viewer link printed below is the only place it appears.
    operatorToken = wanted !== false && isLoopbackHost(resolveConfig(options).http.host) ? newOperatorToken() : undefined;
    server = await startServer({ ...options, ...(operatorToken !== undefined ? { operatorToken } : {}), logStream: 'stderr' });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.reason);
    throw error;
  }
  io.stdout(
    `inboxkit is serving the Disposable Inbox API\n` +
      `  HTTP API  ${server.apiUrl}\n` +
      `  viewer    ${server.viewerUrl}\n` +
      (operatorToken !== undefined
        ? `            (this link's operator token sees every inbox; it is new at each start and shown only here)\n`
        : `            (open it with an inbox token or API key: ${server.url}/#token=… or #key=…)\n`) +
      (mcp ? `  MCP       ${server.url}${MCP_PATH} (Streamable HTTP; stdio: inboxkit mcp)\n` : '') +
      `  SMTP      ${server.smtpHost}:${server.smtpPort}\n` +
      (server.imap ? `  IMAP      ${server.imap.host}:${server.imap.port} (user: an inbox address, password: its inbox token)\n` : '') +
      (server.pop3 ? `  POP3      ${server.pop3.host}:${server.pop3.port}\n` : '') +
      `  domains   ${server.config.domains.join(', ')}\n` +
      `  database  ${server.config.databaseUrl ? redactUrl(server.config.databaseUrl) : (server.config.dbPath ?? 'in memory')}\n` +
      `Press Ctrl+C to stop.\n`,
  );
  const ready = {
    url: server.url, apiUrl: server.apiUrl, smtpHost: server.smtpHost, smtpPort: server.smtpPort, viewerUrl: server.viewerUrl,
    ...(server.imap ? { imapHost: server.imap.host, imapPort: server.imap.port } : {}),
    ...(server.pop3 ? { pop3Host: server.pop3.host, pop3Port: server.pop3.port } : {}),
  };
  io.stdout(`${READY_PREFIX}${JSON.stringify(ready)}\n`);
  await untilSignal();
  // A drain, exit included, takes at most --drain-timeout and a second: should closing hang past that, the process ends anyway.
  const stuck = setTimeout(() => {
    io.stderr(`inboxkit: the drain did not end within --drain-timeout (${server.config.operations.drainTimeoutMs} ms) and 1 s more; exiting.\n`);
    process.exit(1);
  }, server.config.operations.drainTimeoutMs + 1000);
  stuck.unref();
  await server.drain();
  await mcp?.close();
  clearTimeout(stuck);
  return 0;
}
