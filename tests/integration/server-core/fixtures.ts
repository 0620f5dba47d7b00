import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect } from '@playwright/test';
import { createApp, createServerContext, hashSecret, resolveConfig, startServer } from '../../../src/server/index.ts';
import type { EventBus, RunningServer, StartServerOptions, Store } from '../../../src/server/index.ts';
import { openProjectStore, projectBackend } from '../../support/backends.ts';
import type { BackendName } from '../../support/backends.ts';

/** A controllable clock: starts at a fixed instant and moves only when told. */
export interface TestClock {
  now: number;
  advance(ms: number): void;
}

/** A response as the tests look at it. */
export interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Credentials a call can carry. */
export interface CallOptions {
  body?: unknown;
  rawBody?: string;
  /** Sent as `Authorization: Bearer …`. */
  bearer?: string;
  /** Sent as `X-Inbox-Token`. */
  inboxToken?: string;
  headers?: Record<string, string>;
  /** The path is from the server's root, not from the API prefix. */
  root?: boolean;
}

/** Calls the API of a running server. */
export type Api = (method: string, path: string, options?: CallOptions) => Promise<Answer>;

/** Sends a request: over a socket to a server's origin, or in-process to an app. */
type Send = (url: string, init: RequestInit) => Promise<Response>;

/** Calls the API of a listening server over HTTP. */
export function apiOf(server: RunningServer): Api {
  return callerOf((url, init) => fetch(url, init), server.url, server.apiUrl);
}

function callerOf(send: Send, origin: string, apiUrl: string): Api {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
    if (options.inboxToken !== undefined) headers['x-inbox-token'] = options.inboxToken;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
    const res = await send(`${options.root || path.startsWith('/api/') ? origin : apiUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

/** Two API keys each server accepts, each its own user. */
export const KEY_A = 'tm_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const KEY_B = 'tm_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

/** The instant every test clock starts at. */
export const T0 = Date.UTC(2027, 0, 4, 9, 0, 0);

/** The storage and event bus of a test's service, shared by the in-process app and the listening server. */
interface Service {
  store: Store;
  bus: EventBus;
}

export const test = base.extend<{
  /** The project's storage backend; the test is skipped when it is PostgreSQL and none is reachable. */
  storageBackend: BackendName;
  serverOptions: StartServerOptions;
  clock: TestClock;
  service: Service;
  server: RunningServer;
  api: Api;
  tempDir: string;
}>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as the first argument
  storageBackend: [async ({}, use) => use(projectBackend()), { auto: true }],
  serverOptions: [{}, { option: true }],
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as the first argument
  clock: async ({}, use) => {
    const clock: TestClock = {
      now: T0,
      advance(ms) {
        clock.now += ms;
      },
    };
    await use(clock);
  },
  // SQLite in memory, or a fresh PostgreSQL schema in the `integration-postgres` project.
  service: async ({ clock }, use) => {
    const { store, bus, close } = await openProjectStore({ now: () => clock.now });
    await use({ store, bus });
    await close();
  },
  // A listening server (HTTP and SMTP) on the test's store and bus, for the tests that need a socket.
  server: async ({ serverOptions, clock, service }, use) => {
    const server = await startServer({ apiKeys: [KEY_A, KEY_B], now: () => clock.now, ...serverOptions, ...service });
    await use(server);
    await server.close();
  },
  // The API in-process (`app.request`), no port: the configured keys and domains are set up as startServer does.
  api: async ({ serverOptions, clock, service }, use) => {
    const config = resolveConfig({ apiKeys: [KEY_A, KEY_B], ...serverOptions });
    await service.store.syncDomains(config.domains);
    for (const key of config.apiKeys) {
      const keyHash = hashSecret(key);
      if (await service.store.findUserByApiKeyHash(keyHash)) continue;
      const user = await service.store.createUser({ email: `key-${keyHash.slice(0, 12)}@users.inboxkit.test`, planId: 'premium' });
      await service.store.addApiKey(user.id, keyHash, { configured: true });
    }
    const operator = serverOptions.operatorToken !== undefined ? { operatorToken: serverOptions.operatorToken } : {};
    const ctx = createServerContext({ ...service, config, now: () => clock.now, ...operator });
    const app = createApp(ctx);
    const origin = 'http://inboxkit.local';
    // As over a socket, a body comes with its Content-Length (the app reads an empty JSON body by it).
    const send: Send = async (url, init) => {
      const headers = new Headers(init.headers);
      if (typeof init.body === 'string') headers.set('content-length', String(Buffer.byteLength(init.body)));
      return app.request(url, { ...init, headers });
    };
    await use(callerOf(send, origin, `${origin}/api/v1`));
    ctx.faults.close();
  },
  // A fresh private folder for database files, removed after the test. (Not the
  // test's output folder: another Playwright run in the same checkout clears that.)
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as the first argument
  tempDir: async ({}, use) => {
    const dir = await mkdtemp(join(tmpdir(), 'inboxkit-core-'));
    await use(dir);
    await rm(dir, { recursive: true, force: true });
  },
});

export { expect };

/** Expects an error envelope with this status and code. */
export function expectError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.error?.code }, JSON.stringify(answer.body)).toEqual({ status, code });
  expect(typeof answer.body.error.message).toBe('string');
  expect(answer.body.error.message.length).toBeGreaterThan(10);
}

