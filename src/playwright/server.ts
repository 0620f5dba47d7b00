/**
 * {@link inboxkitServer}: what a Playwright config needs to start the local
 * inbox service once for the whole run, before the application under test.
 *
 * @packageDocumentation
 */
import { providerEnv } from '../wire/providers.ts';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PlaywrightTestConfig } from '@playwright/test';
import { InboxkitError } from '../client/index.ts';
import { DEFAULT_HTTP_PORT, DEFAULT_SMTP_PORT, urlHost } from '../wire/defaults.ts';

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
   * HTTP port; 0 picks a free one when the config is loaded (see {@link inboxkitServer}).
   * @defaultValue 8025
   */
  port?: number;
  /**
   * SMTP port the application under test sends its mail to; 0 picks a free one when the config is loaded.
   * @defaultValue 2525
   */
  smtpPort?: number;
  /**
   * Serve every inbox as an IMAP account (IDLE included) on this port, 0 for a
   * free one; the app under test gets `INBOXKIT_IMAP_HOST` and `INBOXKIT_IMAP_PORT`.
   * Log in with an inbox's address and its inbox token (docs/imap-pop3.md).
   * @defaultValue none: no IMAP
   */
  imapPort?: number;
  /**
   * Serve POP3 on this port, 0 for a free one; the app under test gets
   * `INBOXKIT_POP3_HOST` and `INBOXKIT_POP3_PORT`.
   * @defaultValue none: no POP3
   */
  pop3Port?: number;
  /**
   * Mail domain of the test inboxes: the service accepts mail for it, and the
   * fixtures create their inboxes there (`use.inboxkit.domain`). Give one your
   * app's sign-up form accepts when it refuses the default; mail to it never
   * leaves the machine either way (the app sends to the service's SMTP port).
   * @defaultValue `inboxkit.example.com`, under the reserved `example.com`: see docs/playwright.md
   */
  domain?: string;
  /**
   * More `inboxkit serve` arguments, e.g. `['--api-key', 'tm_…', '--ttl', '600']`
   * (see `npx inboxkit serve --help`).
   * @defaultValue []
   */
  args?: readonly string[];
  /**
   * The spam scanner that `message.spamCheck()` and `toPassSpamCheck` use:
   * `spamd://127.0.0.1:783` (SpamAssassin's spamd) or `rspamd://127.0.0.1:11333`
   * (Rspamd). Passed to the service as `--spam-check`.
   * @defaultValue none: spam checks fail with an error saying how to set one up
   */
  spamCheck?: string;
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
  /** Where the `twilio` SDK's requests go: `https://<product>.twilio.com/…` becomes `<this>/<product>/…` (see docs/phones.md). */
  INBOXKIT_TWILIO_BASE_URL: string;
  /** The `endpoint` option of `@aws-sdk/client-sns`'s `SNSClient`. */
  INBOXKIT_SNS_ENDPOINT: string;
  /** The `restHost` option of `@vonage/server-sdk`'s `Vonage`. */
  INBOXKIT_VONAGE_REST_HOST: string;
  /** The plain SMS intake (`POST` JSON `{ to, from, text }`) for apps with a sender of their own. */
  INBOXKIT_SMS_URL: string;
  /** Where the `plivo` SDK's requests go: its `url` option is `<this>/v1/Account/<authId>`. */
  INBOXKIT_PLIVO_BASE_URL: string;
  /** Where the `resend` SDK's requests go: its `baseUrl` option (or `RESEND_BASE_URL`). See docs/email-apis.md. */
  INBOXKIT_RESEND_BASE_URL: string;
  /** Where `@sendgrid/mail`'s requests go: the `baseUrl` of its `@sendgrid/client`. */
  INBOXKIT_SENDGRID_BASE_URL: string;
  /** The `requestHost` of the `postmark` SDK's `ServerClient` (host and path, no scheme; with `useHttps: false`). */
  INBOXKIT_POSTMARK_REQUEST_HOST: string;
  /** The `endpoint` of `@aws-sdk/client-sesv2` and `@aws-sdk/client-ses`. */
  INBOXKIT_SES_ENDPOINT: string;
  /** The `url` of `mailgun.js`'s client. */
  INBOXKIT_MAILGUN_URL: string;
  [name: string]: string;
}

/** What {@link inboxkitServer} returns: pieces of a Playwright config. */
export interface InboxkitServer {
  /** A `webServer` entry that runs `inboxkit serve` and waits for its health check. Put it before the app's entry. */
  webServer: WebServerEntry;
  /** `use` options pointing the fixtures at the service (and its `domain`, when given): spread into the config's `use`. */
  use: { inboxkit: { baseUrl: string; domain?: string } };
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

/** A domain as `--domain` takes it: labels of letters, digits and hyphens. */
function checkDomain(domain: string): string {
  const trimmed = domain.trim().toLowerCase();
  if (!/^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/.test(trimmed)) {
    throw new InboxkitError(`inboxkitServer: domain ${JSON.stringify(domain)} is not a domain name; give one like "inboxkit.example.com" (no "@", no scheme).`);
  }
  return trimmed;
}

function checkPort(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new InboxkitError(`inboxkitServer: ${name} is ${String(value)}; give a port from 1 to 65535, or 0 for a free one.`);
  }
  return value;
}

/** Asks a short-lived Node.js process for free ports on `host` (the config is loaded synchronously, and Node has no synchronous listen). */
function freePorts(host: string, count: number): number[] {
  const script = `const net = require('node:net');
const servers = Array.from({ length: Number(process.argv[2]) }, () => net.createServer());
Promise.all(servers.map((s) => new Promise((resolve, reject) => { s.once('error', reject); s.listen(0, process.argv[1], resolve); })))
  .then(() => { process.stdout.write(servers.map((s) => s.address().port).join(',')); servers.forEach((s) => s.close()); })
  .catch((error) => { process.stderr.write(error.message); process.exit(1); });`;
  const result = spawnSync(process.execPath, ['-e', script, host, String(count)], { encoding: 'utf8', timeout: 10_000 });
  const ports = (result.stdout ?? '').split(',').map(Number);
  if (result.status !== 0 || ports.length !== count || ports.some((port) => !(port > 0))) {
    throw new InboxkitError(`inboxkitServer: could not find a free port on ${host} for port 0: ${result.stderr || result.error?.message || 'no answer'}. Give fixed ports instead.`);
  }
  return ports;
}

/**
 * Resolves ports given as 0 to free ones, the same in every process of the run:
 * Playwright loads the config in the runner and again in each worker, so the
 * runner's choice is handed to the workers (which inherit its environment)
 * through one environment variable per distinct set of options.
 */
function resolvePorts(host: string, asked: readonly number[], args: readonly string[]): number[] {
  if (!asked.includes(0)) return [...asked];
  const key = `INBOXKIT_PICKED_PORTS_${createHash('sha256').update(JSON.stringify(asked.length === 2 ? [host, ...asked, args] : [host, asked, args])).digest('hex').slice(0, 12)}`;
  let picked = (process.env[key] ?? '').split(',').map(Number);
  if (picked.length !== asked.length || picked.some((p) => !(p > 0))) {
    const free = freePorts(host, asked.length);
    picked = asked.map((p, i) => (p === 0 ? (free[i] as number) : p));
    process.env[key] = picked.join(',');
  }
  return picked;
}

/** The provider endpoints of a service at `baseUrl`, one variable per provider API (from the provider table). */
function providersEnv(baseUrl: string) {
  return providerEnv(baseUrl) as Pick<
    InboxkitServerEnv,
    | 'INBOXKIT_TWILIO_BASE_URL'
    | 'INBOXKIT_SNS_ENDPOINT'
    | 'INBOXKIT_VONAGE_REST_HOST'
    | 'INBOXKIT_SMS_URL'
    | 'INBOXKIT_PLIVO_BASE_URL'
    | 'INBOXKIT_RESEND_BASE_URL'
    | 'INBOXKIT_SENDGRID_BASE_URL'
    | 'INBOXKIT_POSTMARK_REQUEST_HOST'
    | 'INBOXKIT_SES_ENDPOINT'
    | 'INBOXKIT_MAILGUN_URL'
  >;
}

/**
 * Pieces of a Playwright config that start the local inbox service (`inboxkit
 * serve`: HTTP API and SMTP intake, in memory) once for the whole run and point
 * the fixtures and the application under test at it.
 *
 * - `webServer`: runs the CLI with the Node.js running Playwright and waits for
 *   `GET /api/v1/healthz`. List it before the application's entry.
 * - `use`: `{ inboxkit: { baseUrl } }` for the fixtures (with `domain` when given).
 * - `env`: `INBOXKIT_BASE_URL`, `INBOXKIT_SMTP_HOST` and `INBOXKIT_SMTP_PORT`
 *   for the application's `webServer` entry, so that it sends its mail there,
 *   and one variable per SMS provider API (`INBOXKIT_TWILIO_BASE_URL`,
 *   `INBOXKIT_SNS_ENDPOINT`, `INBOXKIT_VONAGE_REST_HOST`,
 *   `INBOXKIT_PLIVO_BASE_URL`, `INBOXKIT_SMS_URL`)
 *   so that it sends its SMS there, and one per email provider API
 *   (`INBOXKIT_RESEND_BASE_URL`, `INBOXKIT_SENDGRID_BASE_URL`,
 *   `INBOXKIT_POSTMARK_REQUEST_HOST`, `INBOXKIT_SES_ENDPOINT`,
 *   `INBOXKIT_MAILGUN_URL`; docs/email-apis.md) for mail it sends through them.
 *
 * A port of 0 is replaced by a free port when the config is loaded, so the URLs
 * are known before the service starts. Playwright loads the config again in
 * every worker; the runner's choice reaches them through an environment
 * variable (`INBOXKIT_PICKED_PORTS_…`), the one place this module touches the
 * environment.
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
  const asked = { port: checkPort('port', options.port ?? DEFAULT_HTTP_PORT), smtpPort: checkPort('smtpPort', options.smtpPort ?? DEFAULT_SMTP_PORT) };
  const domain = options.domain === undefined ? undefined : checkDomain(options.domain);
  const extra = [...(options.spamCheck ? ['--spam-check', options.spamCheck] : []), ...(domain !== undefined ? ['--domain', domain] : []), ...(options.args ?? [])];
  const mailboxAsked = [...(options.imapPort !== undefined ? [checkPort('imapPort', options.imapPort)] : []), ...(options.pop3Port !== undefined ? [checkPort('pop3Port', options.pop3Port)] : [])];
  const [port, smtpPort, ...mailboxPorts] = resolvePorts(host, [asked.port, asked.smtpPort, ...mailboxAsked], extra) as [number, number, ...number[]];
  const imapPort = options.imapPort !== undefined ? mailboxPorts[0] : undefined;
  const pop3Port = options.pop3Port !== undefined ? mailboxPorts[mailboxPorts.length - 1] : undefined;
  if (port === smtpPort) {
    throw new InboxkitError(`inboxkitServer: port and smtpPort are both ${port}; give the HTTP API and the SMTP intake different ports.`);
  }
  const baseUrl = `http://${urlHost(host)}:${port}`;
  const smtpHost = urlHost(host).replace(/^\[(.*)\]$/, '$1');
  const mailboxArgs = [...(imapPort !== undefined ? ['--imap-port', String(imapPort)] : []), ...(pop3Port !== undefined ? ['--pop3-port', String(pop3Port)] : [])];
  const mailboxEnv = {
    ...(imapPort !== undefined ? { INBOXKIT_IMAP_HOST: smtpHost, INBOXKIT_IMAP_PORT: String(imapPort) } : {}),
    ...(pop3Port !== undefined ? { INBOXKIT_POP3_HOST: smtpHost, INBOXKIT_POP3_PORT: String(pop3Port) } : {}),
  };
  const argv = [...cliCommand(), 'serve', '--host', host, '--port', String(port), '--smtp-port', String(smtpPort), ...mailboxArgs, ...extra];
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
    use: { inboxkit: domain !== undefined ? { baseUrl, domain } : { baseUrl } },
    env: { INBOXKIT_BASE_URL: baseUrl, INBOXKIT_SMTP_HOST: smtpHost, INBOXKIT_SMTP_PORT: String(smtpPort), ...providersEnv(baseUrl), ...mailboxEnv },
    baseUrl,
    smtpHost,
    smtpPort,
  };
}
