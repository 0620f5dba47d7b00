/**
 * The named steps `startServer` (`start.ts`) composes that open the node's
 * parts: its store, its API keys, its mail parts, the warm-up, the checks of
 * its options. Each takes the configuration and returns a part; none changes
 * the configuration.
 *
 * @packageDocumentation
 */
import type { Logger } from 'pino';
import { isLoopbackHost } from '../wire/defaults.ts';
import { hashSecret, isApiKeyShape, isOperatorTokenShape } from './auth/secrets.ts';
import { ConfigError } from './context/config.ts';
import type { ResolvedConfig } from './context/config.ts';
import { createForwarder } from './forward/forwarder.ts';
import type { ForwardQueue } from './forward/forwarder.ts';
import { createMailPool } from './mail/pool.ts';
import { prepareMessage, readerHtml } from './mail/prepare.ts';
import type { PrepareOptions, PreparedMessage } from './mail/prepare.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { PostgresStore } from './storage/postgres.ts';
import type { Store } from './storage/contract/types.ts';
import { createSqliteStore } from './storage/sqlite.ts';

/** A small HTML email with a style block, inline styles, a link, an image and a code: what the first real message exercises. */
const WARM_UP_HTML =
  '<html><head><style>.code{font:bold 24px monospace;color:#111}</style></head><body><table><tr><td style="padding:8px;display:block">' +
  '<p>Your code is <span class="code">482913</span>.</p><a href="https://app.example/confirm?t=1&amp;u=2" style="color:#06c">Confirm</a>' +
  '<img src="cid:logo@example" alt="logo" width="10"></td></tr></table></body></html>';
const WARM_UP_MESSAGE = Buffer.from(
  'From: Warm-up <warm-up@inboxkit.invalid>\r\nTo: warm-up@inboxkit.invalid\r\nSubject: warm-up\r\nMIME-Version: 1.0\r\n' +
    'Content-Type: multipart/alternative; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n' +
    'Your code is 482913.\r\n--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n' +
    `${WARM_UP_HTML}\r\n--b--\r\n`,
);

/**
 * Loads, before the service says it is ready, what the first message would
 * otherwise load on its way to the first wait: the MIME parser's charset and
 * encoding paths and the HTML sanitizer (its parser and its CSS filter). Nothing
 * is stored; a failure here is left for the first real message to report.
 */
export async function warmUp(): Promise<void> {
  // The same work intake does for a small message (parse), then its reader (sanitize the HTML).
  await prepareMessage(WARM_UP_MESSAGE, { envelopeFrom: 'warm-up@inboxkit.invalid' })
    .then(({ message }) => void readerHtml(message))
    .catch(() => {});
}

/**
 * Makes each configured API key exist as its own premium user (the same user on
 * every start, so their inboxes in a database file stay theirs), and removes keys
 * an earlier start configured but this one does not.
 */
export async function seedApiKeys(store: Store, keys: string[]): Promise<void> {
  const hashes = keys.map(hashSecret);
  await store.removeConfiguredApiKeysExcept(hashes);
  for (const keyHash of hashes) {
    if (await store.findUserByApiKeyHash(keyHash)) continue;
    const email = `key-${keyHash.slice(0, 12)}@users.inboxkit.test`;
    try {
      const user = (await store.findUserByEmail(email)) ?? (await store.createUser({ email, planId: 'premium' }));
      await store.addApiKey(user.id, keyHash, { configured: true });
    } catch (error) {
      // Another node sharing the database seeded the same key at the same moment.
      if (!(await store.findUserByApiKeyHash(keyHash))) throw error;
    }
  }
}

/** Whether `key` is an API key of the store (SMTP AUTH's password); a key of the wrong shape is not looked up. */
export async function apiKeyExists(store: Store, key: string): Promise<boolean> {
  return isApiKeyShape(key) && (await store.findUserByApiKeyHash(hashSecret(key))) !== null;
}

/** Whether a store is the PostgreSQL one (which wants the LISTEN/NOTIFY bus). */
export function isPostgresStore(store: Store): store is PostgresStore {
  return (store as Partial<PostgresStore>).kind === 'postgres';
}

/**
 * Refuses an operator token of the wrong shape, or on a service reachable from
 * other machines (anyone who can reach the port and knows the token reads every inbox).
 */
export function checkOperatorToken(token: string | undefined, host: string): void {
  if (token === undefined) return;
  if (!isOperatorTokenShape(token)) {
    throw new ConfigError('operatorToken', 'option operatorToken must be "tmo_" followed by at least 16 letters, digits, "-" or "_".');
  }
  if (!isLoopbackHost(host)) {
    throw new ConfigError('operatorToken', `option operatorToken needs the HTTP server bound to loopback (127.0.0.1, ::1 or localhost), not ${host}: it opens every inbox.`);
  }
}

/** The node's mail parts: the worker pool that parses large messages, and the forwarding queue (with a relay). */
export interface MailParts {
  prepare(raw: Uint8Array, options: PrepareOptions): Promise<PreparedMessage>;
  forwarder: ForwardQueue | null;
  close(): Promise<void>;
}

/**
 * Makes the node's mail parts. Messages of 512 KiB and more are parsed and
 * sanitized in one worker thread (started on the first such message), so that
 * a large attachment does not hold up other deliveries, streams and requests
 * (an email with a 1 MB attachment takes 10–30 ms of CPU to prepare). Smaller
 * ones are prepared on the event loop: on two cores the hand-off cost more
 * than it saved (`npm run bench -- --only intake`).
 */
export function openMailParts(config: ResolvedConfig, logger: Logger): MailParts {
  const forwarder = config.relayUrl ? createForwarder({ ...config.forwarding, relayUrl: config.relayUrl, logger: logger.child({ component: 'forward' }) }) : null;
  const pool = createMailPool({ threads: 1, minBytes: 512 * 1024 });
  return {
    prepare: (raw, options) => pool.prepare(raw, options),
    forwarder,
    async close() {
      await forwarder?.close();
      await pool.close();
    },
  };
}

/** The store of a service started without one: PostgreSQL for a database URL (its driver loaded only then), else SQLite. */
export async function openStore(config: ResolvedConfig, clock: { now?: () => number }, logger: Logger, metrics: ServiceMetrics): Promise<Store> {
  if (!config.databaseUrl) return createSqliteStore({ path: config.dbPath, ...clock });
  const { createPostgresStore } = await import('./storage/postgres.ts');
  return createPostgresStore({
    url: config.databaseUrl,
    ...clock,
    onConnectionError: (err) => {
      metrics.databaseError('pool');
      logger.warn({ err }, 'database: a pooled connection failed');
    },
  });
}

