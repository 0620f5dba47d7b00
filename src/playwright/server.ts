/**
 * {@link inboxkitServer}: what a Playwright config needs to start the local
 * inbox service once for the whole run, before the application under test.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PlaywrightTestConfig } from '@playwright/test';
import { DEFAULT_HTTP_PORT, DEFAULT_SMTP_PORT, InboxkitError, urlHost } from '../client/index.ts';

/** One `webServer` entry of a Playwright config. */
export type WebServerEntry = Exclude<NonNullable<PlaywrightTestConfig['webServer']>, readonly unknown[]>;

/** Options of {@link inboxkitServer}. */
export interface InboxkitServerOptions {
  /**
   * Host the HTTP API and the SMTP intake bind to (and that the URLs name).
   * @defaultValue '127.0.0.1'
   */
  host?: string;
  /**
   * HTTP port. It must be a fixed port (not 0): the config needs the URL before the service starts.
   * @defaultValue 8025
   */
  port?: number;
  /**
   * SMTP port the application under test sends its mail to.
   * @defaultValue 2525
   */
  smtpPort?: number;
  /**
   * More `inboxkit serve` arguments, e.g. `['--domain', 'example.test', '--api-key', 'tm_…']`
   * (see `npx inboxkit serve --help`).
   * @defaultValue []
   */
  args?: readonly string[];
  /**
   * Use a service that already answers on the port instead of starting one;
   * `!process.env.CI` is the usual choice. With `false` a busy port fails the run.
   * @defaultValue false
   */
  reuseExistingServer?: boolean;
  /**
   * Milliseconds the service may take to answer its health check.
   * @defaultValue 30000
   */
  timeout?: number;
}

/** The environment variables {@link inboxkitServer} hands to the application under test. */
export interface InboxkitServerEnv {
  /** Origin of the service, e.g. `http://127.0.0.1:8025` (the API is under `/api/v1`). */
  INBOXKIT_BASE_URL: string;
  /** Host of the SMTP intake the application sends its mail to. */
  INBOXKIT_SMTP_HOST: string;
  /** Port of the SMTP intake, as a string. */
  INBOXKIT_SMTP_PORT: string;
  [name: string]: string;
}

/** What {@link inboxkitServer} returns: pieces of a Playwright config. */
export interface InboxkitServer {
  /** A `webServer` entry that runs `inboxkit serve` and waits for its health check. Put it before the app's entry. */
  webServer: WebServerEntry;
  /** `use` options pointing the fixtures at the service: spread into the config's `use`. */
  use: { inboxkit: { baseUrl: string } };
  /** Environment for the application under test's `webServer` entry (`env: { ...process.env, ...server.env }`). */
  env: InboxkitServerEnv;
  /** Origin of the service's HTTP API. */
  baseUrl: string;
  /** Host of the SMTP intake. */
  smtpHost: string;
  /** Port of the SMTP intake. */
  smtpPort: number;
}

/**
 * The command line that starts this package's CLI with the running Node.js: the
 * built `bin/inboxkit.js` of an installed package, or `src/cli/main.ts` when the
 * fixtures themselves run from the TypeScript sources (a checkout of inboxkit,
 * which has no `dist/` until it is built).
 */
function cliCommand(): string[] {
  const self = import.meta.url;
  const fromSources = self.endsWith('.ts');
  const entry = fileURLToPath(new URL(fromSources ? '../cli/main.ts' : '../../bin/inboxkit.js', self));
  if (!existsSync(entry)) {
    throw new InboxkitError(`inboxkitServer: the inboxkit command is missing at ${entry}. Reinstall inboxkit (npm i -D inboxkit), or in a checkout run \`npm run build\`.`);
  }
  return [process.execPath, entry];
}

/** Quotes one argument for the shell Playwright runs `webServer.command` in. */
function shellQuote(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  if (process.platform === 'win32') return `"${arg.replace(/"/g, '""')}"`;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

function checkPort(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 65_535) {
    throw new InboxkitError(
      `inboxkitServer: ${name} is ${String(value)}; give a fixed port from 1 to 65535 (the config must know the URL before the service starts, so 0 cannot be used here).`,
    );
  }
  return value;
}

/**
 * Pieces of a Playwright config that start the local inbox service (`inboxkit
 * serve`: HTTP API and SMTP intake, in memory) once for the whole run and point
 * the fixtures and the application under test at it.
 *
 * - `webServer`: runs the CLI with the Node.js running Playwright and waits for
 *   `GET /api/v1/healthz`. List it before the application's entry.
 * - `use`: `{ inboxkit: { baseUrl } }` for the fixtures.
 * - `env`: `INBOXKIT_BASE_URL`, `INBOXKIT_SMTP_HOST` and `INBOXKIT_SMTP_PORT`
 *   for the application's `webServer` entry, so that it sends its mail there.
 *
 * @example
 * ```ts
 * // playwright.config.ts
 * import { defineConfig } from '@playwright/test';
 * import { inboxkitServer } from 'inboxkit/playwright';
 *
 * const inboxkit = inboxkitServer({ port: 18025, smtpPort: 12525, reuseExistingServer: !process.env.CI });
 *
 * export default defineConfig({
 *   use: { ...inboxkit.use, baseURL: 'http://127.0.0.1:3000' },
 *   webServer: [
 *     inboxkit.webServer,
 *     { command: 'npm start', url: 'http://127.0.0.1:3000', env: { ...inboxkit.env, PORT: '3000' } },
 *   ],
 * });
 * ```
 */
export function inboxkitServer(options: InboxkitServerOptions = {}): InboxkitServer {
  const host = options.host ?? '127.0.0.1';
  const port = checkPort('port', options.port ?? DEFAULT_HTTP_PORT);
  const smtpPort = checkPort('smtpPort', options.smtpPort ?? DEFAULT_SMTP_PORT);
  if (port === smtpPort) {
    throw new InboxkitError(`inboxkitServer: port and smtpPort are both ${port}; give the HTTP API and the SMTP intake different ports.`);
  }
  const baseUrl = `http://${urlHost(host)}:${port}`;
  const smtpHost = urlHost(host).replace(/^\[(.*)\]$/, '$1');
  const argv = [...cliCommand(), 'serve', '--host', host, '--port', String(port), '--smtp-port', String(smtpPort), ...(options.args ?? [])];
  return {
    webServer: {
      name: 'inboxkit',
      command: argv.map(shellQuote).join(' '),
      url: `${baseUrl}/api/v1/healthz`,
      reuseExistingServer: options.reuseExistingServer ?? false,
      timeout: options.timeout ?? 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
      gracefulShutdown: { signal: 'SIGTERM', timeout: 2_000 },
    },
    use: { inboxkit: { baseUrl } },
    env: { INBOXKIT_BASE_URL: baseUrl, INBOXKIT_SMTP_HOST: smtpHost, INBOXKIT_SMTP_PORT: String(smtpPort) },
    baseUrl,
    smtpHost,
    smtpPort,
  };
}
