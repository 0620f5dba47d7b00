/**
 * `inboxkit keys create|list|revoke`: the operator's API keys, in the database
 * a service uses (a SQLite file, or the PostgreSQL database several nodes
 * share). Keys are stored as hashes only; a key is printed once, when made.
 *
 * @packageDocumentation
 */
import type { PostgresStore, Store } from '../server/index.ts';
import { UsageError, parse } from './usage.ts';
import type { CliIo } from './usage.ts';

/** The help of `inboxkit keys`. */
export const KEYS_HELP = `Usage: inboxkit keys create [--db PATH|URL] [--email EMAIL] [--label TEXT] [caps]
       inboxkit keys list   [--db PATH|URL] [--json]
       inboxkit keys revoke [--db PATH|URL] (--key tm_… | --id key_…)

Manages the API keys of the database a service uses: the SQLite file of
inboxkit serve --db PATH, or the PostgreSQL database of every node
(inboxkit serve --db postgres://…). The database may also come from
--database-url or DATABASE_URL, as for serve.

create prints the new key once on stdout; the database keeps only its hash.
list shows every key (id, label, user, created, last used, caps, revoked),
never a key itself. revoke refuses the key at once on every node. The event
streams it opened end with "access.revoked": at once on every node of a
PostgreSQL database (told through its notifications), at their next
keep-alive ping (15 s by default) on a SQLite file. The key stays listed, revoked.

Options:
  --db PATH|URL               SQLite database file (created if missing) or a
                              postgres:// URL
  --database-url URL          The same, as a URL (also read from DATABASE_URL)
  --email EMAIL               (create) The user's email; an existing user with it
                              gets another key (default: a new user)
  --label TEXT                (create) What the key is for, e.g. "ci-runner-3"
  --max-inboxes N             (create) Active inboxes (phones included) of the
                              key's user, on the whole service
  --requests-per-minute N     (create) Requests per minute with the key, on the
                              whole service
  --max-streams N             (create) Open event streams with the key, per node
  --json                      (list) One JSON array instead of a table
  --key KEY                   (revoke) The API key to revoke
  --id ID                     (revoke) The id keys list shows (key_…)
  -h, --help                  Show this help

A cap a key does not set is the service's default (inboxkit serve --help,
docs/security.md). Caps hold on every node: each reads the key from the database.
`;

const OPTIONS = {
  db: { type: 'string' },
  'database-url': { type: 'string' },
  email: { type: 'string' },
  label: { type: 'string' },
  'max-inboxes': { type: 'string' },
  'requests-per-minute': { type: 'string' },
  'max-streams': { type: 'string' },
  json: { type: 'boolean' },
  key: { type: 'string' },
  id: { type: 'string' },
} as const;

type Values = Partial<Record<keyof typeof OPTIONS, string | boolean>>;

/** Which options each subcommand takes. */
const TAKES: Record<string, Array<keyof typeof OPTIONS>> = {
  create: ['db', 'database-url', 'email', 'label', 'max-inboxes', 'requests-per-minute', 'max-streams'],
  list: ['db', 'database-url', 'json'],
  revoke: ['db', 'database-url', 'key', 'id'],
};

/** The database the command works on: --db, else --database-url, else DATABASE_URL. */
function databaseOf(values: Values, env: Record<string, string | undefined>, sub: string): string {
  if (typeof values.db === 'string' && typeof values['database-url'] === 'string') {
    throw new UsageError('give the database once: --db or --database-url, not both.');
  }
  const given = (values.db ?? values['database-url'] ?? env.DATABASE_URL?.trim()) || undefined;
  if (typeof given !== 'string') {
    throw new UsageError(`keys ${sub} needs --db PATH (or --database-url URL, or DATABASE_URL): the database the server uses (inboxkit serve --db PATH|URL).`);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(given)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new UsageError(`the database must be a SQLite file path or a postgres:// URL, got a ${scheme}:// URL.`);
  }
  return given;
}

/** Whether the store is a PostgreSQL one (its nodes share notifications). */
function isPostgres(store: Store): store is PostgresStore {
  return typeof (store as Partial<PostgresStore>).url === 'string' && typeof (store as Partial<PostgresStore>).nodeId === 'string';
}

/** How the database is named in messages: a URL without its password. */
async function nameOf(database: string): Promise<string> {
  const server = await import('../server/index.ts');
  return server.isDatabaseUrl(database) ? server.redactUrl(database) : database;
}

function capValue(values: Values, flag: 'max-inboxes' | 'requests-per-minute' | 'max-streams'): number | undefined {
  const value = values[flag];
  if (typeof value !== 'string') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 2_147_483_647) {
    throw new UsageError(`--${flag} must be a whole number of at least 1, got "${value}" (leave it out for the service's default).`);
  }
  return Number(value);
}

/** What `keys create` was asked for, checked before the database is opened. */
function createRequest(values: Values) {
  const email = values.email as string | undefined;
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError(`--email must be an email address, got "${email}".`);
  const label = values.label as string | undefined;
  if (label !== undefined && (label.trim() === '' || label.length > 200)) throw new UsageError('--label must be 1 to 200 characters.');
  const caps = { maxInboxes: capValue(values, 'max-inboxes'), requestsPerMinute: capValue(values, 'requests-per-minute'), maxStreams: capValue(values, 'max-streams') };
  return { email, label, caps };
}

async function createKey(store: Store, where: string, { email, label, caps }: ReturnType<typeof createRequest>, io: CliIo): Promise<number> {
  const { newApiKey, hashSecret } = await import('../server/index.ts');
  const address = email ?? `user-${hashSecret(String(Math.random())).slice(0, 10)}@users.inboxkit.test`;
  const user = (await store.findUserByEmail(address)) ?? (await store.createUser({ email: address, planId: 'premium' }));
  const created = newApiKey();
  const keyHash = hashSecret(created);
  await store.addApiKey(user.id, keyHash, { label: label ?? null, caps: Object.fromEntries(Object.entries(caps).filter(([, v]) => v !== undefined)) });
  const key = (await store.findApiKey(keyHash))?.key;
  io.stdout(`${created}\n`);
  io.stderr(`Created API key ${key?.id ?? ''} for ${user.email} (${user.id}) in ${where}. It is shown only now; the database keeps only its hash.\n`);
  return 0;
}

const when = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'));

/** A key's caps as one cell: `inboxes=5 rpm=600 streams=4`, or `default`. */
function capsCell(caps: { maxInboxes?: number; requestsPerMinute?: number; maxStreams?: number }): string {
  const parts = [
    caps.maxInboxes !== undefined ? `inboxes=${caps.maxInboxes}` : '',
    caps.requestsPerMinute !== undefined ? `rpm=${caps.requestsPerMinute}` : '',
    caps.maxStreams !== undefined ? `streams=${caps.maxStreams}` : '',
  ].filter(Boolean);
  return parts.length === 0 ? 'default' : parts.join(' ');
}

async function listKeys(store: Store, json: boolean, io: CliIo): Promise<number> {
  const keys = await store.listApiKeys();
  if (json) {
    const out = keys.map(({ keyHash: _hash, ...key }) => ({
      ...key,
      createdAt: when(key.createdAt),
      lastUsedAt: key.lastUsedAt === null ? null : when(key.lastUsedAt),
      revokedAt: key.revokedAt === null ? null : when(key.revokedAt),
    }));
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  const rows = [
    ['ID', 'LABEL', 'USER', 'CREATED', 'LAST USED', 'CAPS', 'REVOKED'],
    ...keys.map((k) => [k.id, k.label ?? (k.configured ? '(configured)' : '-'), k.userEmail, when(k.createdAt), when(k.lastUsedAt), capsCell(k.caps), when(k.revokedAt)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  io.stdout(`${rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')}\n`);
  return 0;
}

/** Which key `keys revoke` was asked to revoke, checked before the database is opened. */
function revokeRequest(values: Values, isApiKeyShape: (key: string) => boolean): { key?: string; id?: string } {
  const { key, id } = values as { key?: string; id?: string };
  if ((key === undefined) === (id === undefined)) throw new UsageError('keys revoke needs --key tm_… (the key) or --id key_… (from keys list), one of them.');
  if (key !== undefined && !isApiKeyShape(key)) throw new UsageError(`keys revoke needs --key with the API key to revoke (it starts with "tm_", then at least 16 letters, digits, "-" or "_"), got "${key.slice(0, 8)}…".`);
  if (id !== undefined && !/^key_[0-9a-f]{12}$/.test(id)) throw new UsageError(`--id must be a key id as keys list shows it (key_ and 12 hex digits), got "${id}".`);
  return { key, id };
}

async function revokeKey(store: Store, where: string, { key, id }: { key?: string; id?: string }, io: CliIo): Promise<number> {
  const { hashSecret } = await import('../server/index.ts');
  const keyHash = key !== undefined ? hashSecret(key) : (await store.listApiKeys()).find((k) => k.id === id && k.revokedAt === null)?.keyHash;
  const revoked = keyHash === undefined ? null : await store.revokeApiKey(keyHash);
  if (!revoked) {
    io.stderr(`inboxkit: no such API key in ${where} (already revoked, or made for another database). Nothing changed.\n`);
    return 1;
  }
  if (!isPostgres(store)) {
    io.stderr(`Revoked the API key of user ${revoked.userId} in ${where}. Requests with it now get 401; its event streams end at their next keep-alive.\n`);
    return 0;
  }
  // The nodes learn it through the database's notifications: their streams with the key end now.
  const told = await (await import('../server/index.ts')).announceApiKeyRevoked(store, revoked.userId).then(
    () => 'its event streams end now on every node',
    (error: Error) => `telling the nodes failed (${error.message}), so its event streams end at their next keep-alive`,
  );
  io.stderr(`Revoked the API key of user ${revoked.userId} in ${where}. Requests with it now get 401 on every node; ${told}.\n`);
  return 0;
}

/** Runs `inboxkit keys …`; resolves with the exit code. */
export async function keys(args: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout(KEYS_HELP);
    return sub === undefined ? 2 : 0;
  }
  const takes = TAKES[sub];
  if (!takes) throw new UsageError(`unknown command "keys ${sub}".\n\n${KEYS_HELP}`);
  const { values } = parse(rest, OPTIONS, KEYS_HELP);
  if (values.help) {
    io.stdout(KEYS_HELP);
    return 0;
  }
  const stray = (Object.keys(values) as Array<keyof typeof OPTIONS>).find((name) => values[name] !== undefined && !takes.includes(name));
  if (stray) throw new UsageError(`keys ${sub} takes no --${stray} (see inboxkit keys --help).`);
  const database = databaseOf(values, env, sub);
  const server = await import('../server/index.ts');
  const create = sub === 'create' ? createRequest(values) : null;
  const revoke = sub === 'revoke' ? revokeRequest(values, server.isApiKeyShape) : null;
  const store = await server.openStore(database);
  const where = await nameOf(database);
  try {
    if (create) return await createKey(store, where, create, io);
    if (revoke) return await revokeKey(store, where, revoke, io);
    return await listKeys(store, values.json === true, io);
  } finally {
    await store.close();
  }
}
