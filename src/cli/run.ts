/**
 * The `inboxkit` command: `serve`, `keys create`, `openapi`. The only place
 * that reads the environment and decides exit codes.
 *
 * @packageDocumentation
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { pino } from 'pino';

/** Where the command writes. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** A bad invocation: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Prefix of the machine-readable line `serve` prints once listening. */
export const READY_PREFIX = 'INBOXKIT_READY ';

const MAIN_HELP = `inboxkit: a local Disposable Inbox API (HTTP + SMTP) for testing email flows.

Usage:
  inboxkit serve [options]        Start the local service (see: inboxkit serve --help)
  inboxkit keys create [options]  Create a user and an API key in a database file
  inboxkit openapi                Print the OpenAPI 3.1 document of the API
  inboxkit --help | --version
`;

const SERVE_HELP = `Usage: inboxkit serve [options]

Starts the HTTP API (under /api/v1) and the SMTP intake. Binds 127.0.0.1 unless told otherwise.
Once listening it prints the URLs, then one line for scripts:
  ${READY_PREFIX}{"url":…,"apiUrl":…,"smtpHost":…,"smtpPort":…,"viewerUrl":…}
The web inbox viewer is at / on the HTTP port. Bound to loopback, the service makes a
new operator token at each start and prints the viewer URL with it (#key=tmo_…): that
link shows every inbox. Anywhere else, open the viewer with an inbox token or API key.

Options:
  --host HOST              HTTP host to bind (default 127.0.0.1; 0.0.0.0 exposes it to the network)
  --port PORT              HTTP port, 0 for a free one (default 8025)
  --smtp-host HOST         SMTP host to bind (default: the HTTP host)
  --smtp-port PORT         SMTP port, 0 for a free one (default 2525)
  --db PATH                SQLite database file (WAL); default: in memory, gone on exit
  --domain DOMAIN          Mail domain to accept, repeatable; the first is the default
                           (default inboxkit.test)
  --api-key KEY            Accept this API key (tm_…), repeatable; each is its own user.
                           Also read from INBOXKIT_API_KEYS (comma- or space-separated)
  --rate-limit N|off       Requests per minute per credential (per address when anonymous)
                           (default 6000)
  --ttl SECONDS|never      Inbox lifetime (default: 86400 for guests, 604800 for API key users)
  --max-message-size SIZE  Largest message over SMTP, in bytes or with k/m suffix (default 10m)
  --relay-url URL          SMTP relay for forwarding, e.g. smtp://127.0.0.1:1025;
                           without one, setting forwardTo answers 400 forwarding_unavailable
  --forward-attempts N     Relay attempts per forwarded message, the first included (default 5)
  --forward-retry-delay D  Delay before the first relay retry, doubled after each failure
                           (default 1s)
  --forward-max-retry-delay D
                           Upper bound of a relay retry delay (default 60s)

SMTP intake:
  --smtp-tls-key PATH      Offer STARTTLS with this private key (PEM); needs --smtp-tls-cert
  --smtp-tls-cert PATH     Certificate (chain, PEM) for STARTTLS; needs --smtp-tls-key
  --smtp-greeting-delay D  Wait before the 220 greeting; a client that talks first gets 421
                           (default 0)
  --smtp-timeout D         Close an SMTP connection idle this long while the server waits
                           for it, or taking longer to send one line, with 421 (default 60s)
  --smtp-max-connections N|unlimited
                           Most simultaneous SMTP connections; the next gets 421
                           (default unlimited)

Event stream:
  --stream-ping-interval D Interval of the ": ping" keep-alive comment (default 15s)
  --stream-max-buffer SIZE Bytes a stream client may leave unread before it is dropped as
                           too slow (it resumes with Last-Event-ID), k/m suffix (default 1m)

Durations (D) are milliseconds, or a number with ms, s or m (e.g. 500ms, 30s, 2m).

Logging and help:
  --no-operator-token      Do not make an operator token (the viewer then needs an inbox
                           token or API key, as the API does)
  --log-level LEVEL        fatal, error, warn, info, debug, trace or silent (default warn);
                           logs are JSON lines on stderr
  -h, --help               Show this help
`;

const KEYS_HELP = `Usage: inboxkit keys create --db PATH [--email EMAIL]

Creates a user on the premium plan and an API key in the database file, and prints
the key once on stdout (only its hash is stored). Start the server on the same file:
  inboxkit serve --db PATH

Options:
  --db PATH        SQLite database file (required; created if missing)
  --email EMAIL    The user's email; an existing user with it gets another key
                   (default: a new user with a generated address)
  -h, --help       Show this help
`;

const OPENAPI_HELP = `Usage: inboxkit openapi

Prints the OpenAPI 3.1 document of the API (the one served at /api/v1/openapi.json).
`;

function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, help: string) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: false, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${help}`);
  }
}

function port(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`${flag} must be a port number from 0 to 65535, got "${value}".`);
  return n;
}

function size(value: string | undefined, flag = '--max-message-size'): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\s*([kKmM]?)[bB]?$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag} must be a number of bytes, optionally with a k or m suffix (e.g. 10m), got "${value}".`);
  const unit = match[2]?.toLowerCase();
  const n = Number(match[1]) * (unit === 'k' ? 1024 : unit === 'm' ? 1024 * 1024 : 1);
  if (n < 1) throw new UsageError(`${flag} must be at least 1 byte.`);
  return n;
}

/** A duration in milliseconds: bare milliseconds, or with an ms, s or m unit. */
function duration(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\s*(ms|s|m)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag} must be a duration: milliseconds, or a number with ms, s or m (e.g. 500ms, 30s, 2m), got "${value}".`);
  const unit = match[2] ?? 'ms';
  return Number(match[1]) * (unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1);
}

function count(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} must be a whole number of at least 1, got "${value}".`);
  return Number(value);
}

function maxConnections(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'unlimited') return null;
  return count('--smtp-max-connections', value);
}

async function tlsPair(keyPath: string | undefined, certPath: string | undefined): Promise<{ key: Buffer; cert: Buffer } | undefined> {
  if (keyPath === undefined && certPath === undefined) return undefined;
  if (keyPath === undefined || certPath === undefined) {
    throw new UsageError('STARTTLS needs both --smtp-tls-key and --smtp-tls-cert (PEM files); give both, or neither to not offer STARTTLS.');
  }
  const { readFile } = await import('node:fs/promises');
  const read = async (flag: string, path: string) => {
    try {
      return await readFile(path);
    } catch (error) {
      throw new UsageError(`${flag}: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give the path of a PEM file.`);
    }
  };
  return { key: await read('--smtp-tls-key', keyPath), cert: await read('--smtp-tls-cert', certPath) };
}

function rateLimit(value: string | undefined): number | false | undefined {
  if (value === undefined) return undefined;
  if (value === 'off' || value === '0') return false;
  if (!/^\d+$/.test(value)) throw new UsageError(`--rate-limit must be a number of requests per minute or "off", got "${value}".`);
  return Number(value);
}

function ttl(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'never' || value === '0') return null;
  if (!/^\d+$/.test(value)) throw new UsageError(`--ttl must be a number of seconds or "never", got "${value}".`);
  return Number(value);
}

function relayUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--relay-url must be a URL like smtp://127.0.0.1:1025, got "${value}".`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new UsageError(`--relay-url must use smtp:// or smtps://, got "${value}".`);
  }
  return value;
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

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

async function serve(args: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const { values } = parse(
    args,
    {
      host: { type: 'string' },
      port: { type: 'string' },
      'smtp-host': { type: 'string' },
      'smtp-port': { type: 'string' },
      db: { type: 'string' },
      domain: { type: 'string', multiple: true },
      'api-key': { type: 'string', multiple: true },
      'rate-limit': { type: 'string' },
      ttl: { type: 'string' },
      'max-message-size': { type: 'string' },
      'relay-url': { type: 'string' },
      'forward-attempts': { type: 'string' },
      'forward-retry-delay': { type: 'string' },
      'forward-max-retry-delay': { type: 'string' },
      'smtp-tls-key': { type: 'string' },
      'smtp-tls-cert': { type: 'string' },
      'smtp-greeting-delay': { type: 'string' },
      'smtp-timeout': { type: 'string' },
      'smtp-max-connections': { type: 'string' },
      'stream-ping-interval': { type: 'string' },
      'stream-max-buffer': { type: 'string' },
      'log-level': { type: 'string' },
      'no-operator-token': { type: 'boolean' },
    },
    SERVE_HELP,
  );
  if (values.help) {
    io.stdout(SERVE_HELP);
    return 0;
  }
  const logLevel = values['log-level'] ?? 'warn';
  if (!LOG_LEVELS.has(logLevel)) throw new UsageError(`--log-level must be one of ${[...LOG_LEVELS].join(', ')}, got "${logLevel}".`);
  const envKeys = (env.INBOXKIT_API_KEYS ?? '').split(/[\s,]+/).filter(Boolean);
  const forwarding = {
    attempts: count('--forward-attempts', values['forward-attempts']),
    baseDelayMs: duration('--forward-retry-delay', values['forward-retry-delay']),
    maxDelayMs: duration('--forward-max-retry-delay', values['forward-max-retry-delay']),
  };
  const smtpTls = await tlsPair(values['smtp-tls-key'], values['smtp-tls-cert']);

  const { startServer } = await import('../server/start.ts');
  const host = values.host ?? '127.0.0.1';
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  // A new secret at every start: the viewer link printed below is the only place it appears.
  const operatorToken = loopback && !values['no-operator-token'] ? `tmo_${(await import('node:crypto')).randomBytes(32).toString('base64url')}` : undefined;
  let server;
  try {
    server = await startServer({
      host,
      ...(operatorToken !== undefined ? { operatorToken } : {}),
      port: port('--port', values.port, 8025),
      smtpHost: values['smtp-host'],
      smtpPort: port('--smtp-port', values['smtp-port'], 2525),
      dbPath: values.db ?? null,
      domains: values.domain,
      apiKeys: [...(values['api-key'] ?? []), ...envKeys],
      rateLimit: rateLimit(values['rate-limit']),
      inboxTtlSeconds: ttl(values.ttl),
      maxMessageBytes: size(values['max-message-size']),
      relayUrl: relayUrl(values['relay-url']),
      forwarding: Object.fromEntries(Object.entries(forwarding).filter(([, v]) => v !== undefined)),
      smtpTls,
      smtpGreetingDelayMs: duration('--smtp-greeting-delay', values['smtp-greeting-delay']),
      smtpSocketTimeoutMs: duration('--smtp-timeout', values['smtp-timeout']),
      smtpMaxConnections: maxConnections(values['smtp-max-connections']),
      streamPingIntervalMs: duration('--stream-ping-interval', values['stream-ping-interval']),
      streamMaxBufferedBytes: size(values['stream-max-buffer'], '--stream-max-buffer'),
      logger: pino({ level: logLevel }, pino.destination(2)),
    });
  } catch (error) {
    // Invalid option values are reported by the server as TypeErrors naming the option.
    if (error instanceof TypeError) throw new UsageError(error.message.replace(/^inboxkit server: /, ''));
    throw error;
  }
  io.stdout(
    `inboxkit is serving the Disposable Inbox API\n` +
      `  HTTP API  ${server.apiUrl}\n` +
      `  viewer    ${server.viewerUrl}\n` +
      (operatorToken !== undefined
        ? `            (this link's operator token sees every inbox; it is new at each start and shown only here)\n`
        : `            (open it with an inbox token or API key: ${server.url}/#token=… or #key=…)\n`) +
      `  SMTP      ${server.smtpHost}:${server.smtpPort}\n` +
      `  domains   ${server.config.domains.join(', ')}\n` +
      `  database  ${server.config.dbPath ?? 'in memory'}\n` +
      `Press Ctrl+C to stop.\n`,
  );
  io.stdout(
    `${READY_PREFIX}${JSON.stringify({ url: server.url, apiUrl: server.apiUrl, smtpHost: server.smtpHost, smtpPort: server.smtpPort, viewerUrl: server.viewerUrl })}\n`,
  );
  await untilSignal();
  await server.close();
  return 0;
}

async function keys(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout(KEYS_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'create') throw new UsageError(`unknown command "keys ${sub}".\n\n${KEYS_HELP}`);
  const { values } = parse(rest, { db: { type: 'string' }, email: { type: 'string' } }, KEYS_HELP);
  if (values.help) {
    io.stdout(KEYS_HELP);
    return 0;
  }
  if (!values.db) {
    throw new UsageError('keys create needs --db PATH: a key in an in-memory database would vanish at once. Use the same file with `inboxkit serve --db PATH`.');
  }
  if (values.email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(values.email)) {
    throw new UsageError(`--email must be an email address, got "${values.email}".`);
  }
  const [{ createSqliteStore }, { newApiKey }, { hashSecret }] = await Promise.all([
    import('../server/storage/sqlite.ts'),
    import('../server/auth/secrets.ts'),
    import('../server/context.ts'),
  ]);
  const store = createSqliteStore({ path: values.db });
  try {
    const email = values.email ?? `user-${hashSecret(String(Math.random())).slice(0, 10)}@users.inboxkit.test`;
    const user = (await store.findUserByEmail(email)) ?? (await store.createUser({ email, planId: 'premium' }));
    const key = newApiKey();
    await store.addApiKey(user.id, hashSecret(key));
    io.stdout(`${key}\n`);
    io.stderr(`Created an API key for ${user.email} (${user.id}) in ${values.db}. It is shown only now; the database keeps only its hash.\n`);
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
  const [{ createApp }, { createSqliteStore }, { createEventBus }, context] = await Promise.all([
    import('../server/app.ts'),
    import('../server/storage/sqlite.ts'),
    import('../server/events/bus.ts'),
    import('../server/context.ts'),
  ]);
  const store = createSqliteStore();
  try {
    const config = context.resolveConfig({});
    const app = createApp({ store, bus: createEventBus(), config, logger: pino({ level: 'silent' }), now: Date.now, hash: context.hashSecret });
    const res = await app.request('/api/v1/openapi.json');
    io.stdout(`${JSON.stringify(await res.json(), null, 2)}\n`);
  } finally {
    await store.close();
  }
  return 0;
}

/** The package version, read from package.json next to src/ or dist/. */
async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
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
    io.stderr(`inboxkit: ${(error as Error).message}\n`);
    return 1;
  }
}
