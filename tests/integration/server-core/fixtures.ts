import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect } from '@playwright/test';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer, StartServerOptions } from '../../../src/server/index.ts';

/** A controllable clock: starts at the real time and moves only when told. */
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

export function apiOf(server: RunningServer): Api {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
    if (options.inboxToken !== undefined) headers['x-inbox-token'] = options.inboxToken;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
    const res = await fetch(`${options.root || path.startsWith('/api/') ? server.url : server.apiUrl}${path}`, { method, headers, body });
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

export const test = base.extend<{
  serverOptions: StartServerOptions;
  clock: TestClock;
  server: RunningServer;
  api: Api;
  tempDir: string;
}>({
  serverOptions: [{}, { option: true }],
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as the first argument
  clock: async ({}, use) => {
    const clock: TestClock = {
      now: Date.now(),
      advance(ms) {
        clock.now += ms;
      },
    };
    await use(clock);
  },
  server: async ({ serverOptions, clock }, use) => {
    const server = await startServer({ apiKeys: [KEY_A, KEY_B], now: () => clock.now, ...serverOptions });
    await use(server);
    await server.close();
  },
  api: async ({ server }, use) => {
    await use(apiOf(server));
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

