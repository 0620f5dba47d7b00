/**
 * `inboxkit keys create|list|revoke` against the database a service uses, a
 * SQLite file or the PostgreSQL database of several nodes (issue 40): a key's
 * label and its own caps, enforced by every node; a list that never shows a
 * key; a revocation that every node honours, ending the key's streams.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { main } from '../../../src/cli/run.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { POSTGRES_SKIP, POSTGRES_URL, freshPostgres } from '../../support/backends.ts';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'https://extension.example/callback';

/** Runs the CLI in this process, as `inboxkit …` with `env`. */
async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, env, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

/** A fresh database of a backend: how the CLI and the server are pointed at it. */
interface Database {
  /** CLI arguments and environment that name it (PostgreSQL through DATABASE_URL, as a container sets it). */
  args: string[];
  env: Record<string, string>;
  /** startServer options. */
  options: { db: string };
  /** Whether several nodes may share it. */
  shared: boolean;
  drop(): Promise<void>;
}

const BACKENDS = [
  {
    name: 'SQLite',
    skip: null as string | null,
    async open(): Promise<Database> {
      const dir = await mkdtemp(join(tmpdir(), 'inboxkit-keys-'));
      const path = join(dir, 'service.db');
      return { args: ['--db', path], env: {}, options: { db: path }, shared: false, drop: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    skip: POSTGRES_URL ? null : POSTGRES_SKIP,
    async open(): Promise<Database> {
      const db = await freshPostgres();
      return { args: [], env: { DATABASE_URL: db.url }, options: { db: db.url }, shared: true, drop: () => db.drop() };
    },
  },
];

async function api(server: RunningServer, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${server.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as { data?: Record<string, unknown>; error?: { code: string; message: string } } | null };
}

/** Opens `GET /me/events` (or another stream) with the key; `text()` is what arrived so far, `ended` resolves when the server ends it. */
async function openEvents(server: RunningServer, key: string, path = '/me/events') {
  const controller = new AbortController();
  const res = await fetch(`${server.apiUrl}${path}`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${key}` }, signal: controller.signal });
  let received = '';
  const ended = res.ok
    ? (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of res.body!) received += decoder.decode(chunk as Uint8Array, { stream: true });
      })().catch(() => {})
    : Promise.resolve();
  if (!res.ok) received = await res.text();
  return { status: res.status, text: () => received, ended, close: () => controller.abort() };
}

for (const backend of BACKENDS) {
  test.describe(`inboxkit keys on ${backend.name}`, () => {
    test.skip(backend.skip !== null, backend.skip ?? '');

    test('a key made with a label and caps is listed without the key, and every node holds it to its own caps', async () => {
      const db = await backend.open();
      const servers: RunningServer[] = [];
      try {
        const made = await cli(['keys', 'create', ...db.args, '--label', 'ci-runner-3', '--max-inboxes', '2', '--requests-per-minute', '8', '--max-streams', '1'], db.env);
        expect(made.code, made.stderr).toBe(0);
        const key = made.stdout.trim();
        expect(key).toMatch(/^tm_/);
        const other = (await cli(['keys', 'create', ...db.args, '--label', 'no caps'], db.env)).stdout.trim();

        const listed = await cli(['keys', 'list', ...db.args], db.env);
        expect(listed.code).toBe(0);
        expect(listed.stdout).toMatch(/ci-runner-3 .* inboxes=2 rpm=8 streams=1/);
        expect(listed.stdout).toMatch(/no caps .* default/);
        expect(listed.stdout).not.toContain(key);
        expect(listed.stdout).not.toContain(other);

        // Two nodes where the database may be shared; the caps hold on each.
        servers.push(await startServer({ ...db.options, port: 0, smtpPort: 0 }));
        if (db.shared) servers.push(await startServer({ ...db.options, port: 0, smtpPort: 0 }));
        const [a, b = a] = servers as [RunningServer, RunningServer?];

        const me = await api(a, 'GET', '/me', key);
        expect((me.body!.data!.plan as { entitlements: Record<string, unknown> }).entitlements).toMatchObject({ maxActiveInboxes: 2, requestsPerMinute: 8 });
        expect((await api(a, 'POST', '/inboxes', key, {})).status).toBe(200);
        expect((await api(b, 'POST', '/inboxes', key, {})).status).toBe(200);
        const third = await api(b, 'POST', '/inboxes', key, {});
        expect(third.status).toBe(403);
        expect(third.body!.error!.message).toContain('allows 2 active inboxes');

        // The key's own stream cap (1) replaces the node's default (128).
        const stream = await openEvents(b, key);
        expect(stream.status).toBe(200);
        const second = await openEvents(b, key);
        expect(second.status).toBe(429);
        expect(second.text()).toContain("this API key's own cap; inboxkit keys create --max-streams");
        stream.close();

        // Requests per minute: 8 for the key across the service (5 made so far), the default for the other key.
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) statuses.push((await api(i % 2 === 0 ? a : b, 'GET', '/me', key)).status);
        expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
        for (let i = 0; i < 10; i++) expect((await api(a, 'GET', '/me', other)).status).toBe(200);
      } finally {
        for (const server of servers) await server.close();
        await db.drop();
      }
    });

    test('a session issued under a key with caps is held to the key\'s caps, counted with the key, so it cannot lift them', async () => {
      const db = await backend.open();
      let server: RunningServer | undefined;
      try {
        const key = (await cli(['keys', 'create', ...db.args, '--max-inboxes', '1', '--max-streams', '1'], db.env)).stdout.trim();
        server = await startServer({ ...db.options, port: 0, smtpPort: 0 });
        const issued = await api(server, 'POST', '/extension/codes', key, { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256', redirectUri: REDIRECT });
        expect(issued.status).toBe(200);
        const exchanged = await fetch(`${server.apiUrl}/extension/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ code: issued.body!.data!.code, codeVerifier: VERIFIER, redirectUri: REDIRECT }),
        });
        const session = ((await exchanged.json()) as { data: { accessToken: string } }).data.accessToken;

        const me = await api(server, 'GET', '/me', session);
        expect((me.body!.data!.plan as { entitlements: Record<string, unknown> }).entitlements).toMatchObject({ maxActiveInboxes: 1 });
        expect((await api(server, 'POST', '/inboxes', key, {})).status).toBe(200);
        expect((await api(server, 'POST', '/inboxes', session, {})).status).toBe(403);
        // One stream for the key and its sessions together.
        const byKey = await openEvents(server, key);
        expect(byKey.status).toBe(200);
        const bySession = await openEvents(server, session);
        expect(bySession.status).toBe(429);
        byKey.close();
      } finally {
        await server?.close();
        await db.drop();
      }
    });

    test('keys list shows when a key was last used, and keys revoke --id ends it on every node, its streams included (at once on PostgreSQL); it stays listed, revoked', async () => {
      const db = await backend.open();
      const servers: RunningServer[] = [];
      try {
        const key = (await cli(['keys', 'create', ...db.args, '--label', 'staging', '--email', 'qa@example.com'], db.env)).stdout.trim();
        const before = JSON.parse((await cli(['keys', 'list', ...db.args, '--json'], db.env)).stdout) as Array<Record<string, unknown>>;
        expect(before).toHaveLength(1);
        expect(before[0]).toMatchObject({ label: 'staging', userEmail: 'qa@example.com', lastUsedAt: null, revokedAt: null, caps: {} });
        expect(JSON.stringify(before)).not.toContain(key);
        expect(before[0]).not.toHaveProperty('keyHash');

        // On PostgreSQL the nodes are told through the database's notifications, so their keep-alive
        // (which also re-reads the key) is set beyond the test's time: only the notification can end
        // the streams. A SQLite file has one node, in another process than the command: its keep-alive does.
        const pingMs = db.shared ? 10 * 60_000 : 200;
        servers.push(await startServer({ ...db.options, port: 0, smtpPort: 0, streamPingIntervalMs: pingMs }));
        if (db.shared) servers.push(await startServer({ ...db.options, port: 0, smtpPort: 0, streamPingIntervalMs: pingMs }));
        // The caller-wide stream on every node, and an inbox's stream on the last node (made on the first).
        const inbox = await api(servers[0]!, 'POST', '/inboxes', key, {});
        const streams = await Promise.all([
          ...servers.map((server) => openEvents(server, key)),
          openEvents(servers.at(-1)!, key, `/inboxes/${String(inbox.body!.data!.id)}/stream`),
        ]);
        for (const stream of streams) expect(stream.status).toBe(200);
        const used = JSON.parse((await cli(['keys', 'list', ...db.args, '--json'], db.env)).stdout) as Array<{ id: string; lastUsedAt: string | null }>;
        expect(used[0]!.lastUsedAt).not.toBeNull();

        const revoked = await cli(['keys', 'revoke', ...db.args, '--id', used[0]!.id], db.env);
        expect(revoked.code, revoked.stderr).toBe(0);
        expect(revoked.stderr).toContain(db.shared ? 'its event streams end now on every node' : 'at their next keep-alive');
        for (const server of servers) expect((await api(server, 'GET', '/me', key)).status).toBe(401);
        for (const stream of streams) {
          await stream.ended;
          expect(stream.text()).toContain('event: access.revoked');
          expect(stream.text()).toContain('api_key_revoked');
        }

        const after = JSON.parse((await cli(['keys', 'list', ...db.args, '--json'], db.env)).stdout) as Array<{ revokedAt: string | null }>;
        expect(after[0]!.revokedAt).not.toBeNull();
        const again = await cli(['keys', 'revoke', ...db.args, '--key', key], db.env);
        expect(again.code).toBe(1);
        expect(again.stderr).toContain('Nothing changed');
      } finally {
        for (const server of servers) await server.close();
        await db.drop();
      }
    });
  });
}

test('keys commands refuse bad input before touching a database, saying what to fix', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['keys', 'list'], /needs --db PATH \(or --database-url URL, or DATABASE_URL\)/],
    [['keys', 'create', '--db', 'x.db', '--max-inboxes', 'lots'], /--max-inboxes must be a whole number of at least 1, got "lots"/],
    [['keys', 'create', '--db', 'x.db', '--label', ''], /--label must be 1 to 200 characters/],
    [['keys', 'list', '--db', 'x.db', '--key', 'tm_x'], /keys list takes no --key/],
    [['keys', 'revoke', '--db', 'x.db'], /needs --key tm_… \(the key\) or --id key_…/],
    [['keys', 'revoke', '--db', 'x.db', '--id', 'bob'], /--id must be a key id as keys list shows it/],
    [['keys', 'create', '--db', 'x.db', '--database-url', 'postgres://h/d'], /--db or --database-url, not both/],
    [['keys', 'list', '--database-url', 'mysql://h/d'], /SQLite file path or a postgres:\/\/ URL/],
    [['keys', 'rotate'], /unknown command "keys rotate"/],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await cli(args);
    expect({ args, code }).toEqual({ args, code: 2 });
    expect(stderr).toMatch(message);
  }
});
