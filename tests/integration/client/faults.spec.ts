import { test as base, expect } from '@playwright/test';
import { createSqliteStore, startServer } from '../../../src/server/index.ts';
import type { RunningServer, Store } from '../../../src/server/index.ts';
import { createClient, ConnectionError, InternalServerError, TimeoutError, AbortError } from '../../../src/client/index.ts';
import type { InboxkitClient } from '../../../src/client/index.ts';

/** How the store behind the real server misbehaves on `listDomains` (GET /domains). */
interface Fault {
  failuresLeft: number;
  delayMs: number;
  calls: number;
}

const test = base.extend<{ fault: Fault; server: RunningServer; client: InboxkitClient }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures must destructure their first argument
  fault: async ({}, use) => use({ failuresLeft: 0, delayMs: 0, calls: 0 }),
  server: async ({ fault }, use) => {
    const real = createSqliteStore();
    const store = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'listDomains') {
          return async () => {
            fault.calls++;
            if (fault.failuresLeft > 0) {
              fault.failuresLeft--;
              throw new Error('disk on fire (injected)');
            }
            if (fault.delayMs > 0) await new Promise((r) => setTimeout(r, fault.delayMs));
            return target.listDomains();
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    const server = await startServer({ store });
    await use(server);
    await server.close();
    await real.close();
  },
  client: async ({ server }, use) => {
    const client = createClient({ baseUrl: server.apiUrl, retry: { baseDelayMs: 10, maxDelayMs: 50 } });
    await use(client);
    await client.close();
  },
});

test('a real server that fails twice with 500 and then answers is retried to success', async ({ client, fault }) => {
  fault.failuresLeft = 2;
  const { data, response } = await client.domains.list().withResponse();
  expect(data[0]?.domain).toBe('inboxkit.example.com');
  expect(response.retries).toBe(2);
  expect(fault.calls).toBe(3);
});

test('a real server that keeps failing gives an InternalServerError with its request id after the retries', async ({ client, fault }) => {
  fault.failuresLeft = 10;
  const err = await client.domains.list().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InternalServerError);
  expect((err as InternalServerError).code).toBe('internal_error');
  expect((err as InternalServerError).requestId).toEqual(expect.any(String));
  expect((err as Error).message).toMatch(/fault of the server.*request id/);
  expect(fault.calls).toBe(3);
});

test('a real server slower than the timeout gives a TimeoutError', async ({ client, fault }) => {
  fault.delayMs = 2000;
  const err = await client.domains.list({ timeout: 100, retry: false }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TimeoutError);
});

test('aborting a slow request gives an AbortError at once', async ({ client, fault }) => {
  fault.delayMs = 5000;
  const controller = new AbortController();
  const pending = client.domains.list({ signal: controller.signal }).catch((e: unknown) => e);
  await expect.poll(() => fault.calls).toBe(1);
  controller.abort();
  expect(await pending).toBeInstanceOf(AbortError);
});

test('a server that has stopped gives a ConnectionError after the retries', async ({ server, client }) => {
  await server.close();
  const err = await client.me.get().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConnectionError);
  expect((err as Error).message).toMatch(/after 2 retries/);
});
