/**
 * The two event streams share one connection (src/server/streams): where
 * their policies agree — slow client, ping, credential re-check, deadline,
 * revocation, cleanup, HEAD — one table of behaviours runs against both,
 * `GET /inboxes/{id}/stream` and `GET /me/events`. In-process (`app.request`),
 * on the project's store (SQLite, or PostgreSQL in `integration-postgres`),
 * with the connections' timers injected: a ping or a deadline fires when the
 * test moves the clock, and live timers and bus subscriptions can be counted.
 */
import { createApp, createServerContext, hashSecret, resolveConfig } from '../../../src/server/index.ts';
import type { BusEvent, ConnectionTimers, EventBus, Store } from '../../../src/server/index.ts';
import { test, expect, KEY_A, KEY_B } from './fixtures.ts';
import type { TestClock } from './fixtures.ts';

const PING_MS = 10_000;

/** Timers on the test clock: they fire when {@link FakeTimers.advance} moves it past them. */
class FakeTimers implements ConnectionTimers {
  readonly #clock: TestClock;
  #next = 1;
  readonly #timers = new Map<number, { callback: () => void; every: number | null; due: number }>();
  constructor(clock: TestClock) {
    this.#clock = clock;
  }
  setInterval(callback: () => void, ms: number): number {
    return this.#add(callback, ms, ms);
  }
  setTimeout(callback: () => void, ms: number): number {
    return this.#add(callback, ms, null);
  }
  clearInterval(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  /** Timers armed and not cleared. */
  get live(): number {
    return this.#timers.size;
  }
  /** Moves the clock by `ms`, firing each timer that falls due on the way, in order. */
  advance(ms: number): void {
    const end = this.#clock.now + ms;
    for (;;) {
      const [id, timer] = [...this.#timers].sort((a, b) => a[1].due - b[1].due)[0] ?? [];
      if (id === undefined || timer === undefined || timer.due > end) break;
      this.#clock.now = Math.max(this.#clock.now, timer.due);
      if (timer.every === null) this.#timers.delete(id);
      else timer.due += timer.every;
      timer.callback();
    }
    this.#clock.now = end;
  }
  #add(callback: () => void, ms: number, every: number | null): number {
    const id = this.#next++;
    this.#timers.set(id, { callback, every, due: this.#clock.now + Math.max(0, ms) });
    return id;
  }
}

/** A bus that counts its live subscriptions. */
function countingBus(bus: EventBus): EventBus & { live(): number } {
  let live = 0;
  const counted = (off: () => void) => {
    live++;
    let done = false;
    return () => {
      if (!done) live--;
      done = true;
      off();
    };
  };
  return {
    mayResync: bus.mayResync,
    publish: (event: BusEvent) => bus.publish(event),
    subscribe: (inboxId, listener) => counted(bus.subscribe(inboxId, listener)),
    subscribeAll: (listener) => counted(bus.subscribeAll(listener)),
    live: () => live,
  };
}

/** An open stream read in-process: its events, its comments, and how it ended. */
interface Reading {
  events: { event: string; data: unknown }[];
  comments: string[];
  /** 'ended' when the server closed it, 'dropped' when it errored the body. */
  outcome: Promise<'ended' | 'dropped'>;
  next(name: string): Promise<{ event: string; data: unknown }>;
  cancel(): Promise<void>;
}

function read(res: Response): Reading {
  const events: Reading['events'] = [];
  const comments: string[] = [];
  const reader = res.body!.getReader();
  let wake: () => void = () => {};
  let text = '';
  const outcome = (async () => {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended' as const;
        text += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = text.indexOf('\n\n')) !== -1) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          if (block.startsWith(':')) comments.push(block.slice(1).trim());
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== undefined) events.push({ event, data: data === undefined ? null : JSON.parse(data) });
        }
        wake();
      }
    } catch {
      return 'dropped' as const;
    } finally {
      wake();
    }
  })();
  return {
    events,
    comments,
    outcome,
    async next(name) {
      for (;;) {
        const found = events.find((e) => e.event === name);
        if (found) return found;
        const ended = await Promise.race([new Promise<false>((resolve) => (wake = () => resolve(false))), outcome.then(() => true)]);
        if (ended && !events.some((e) => e.event === name)) throw new Error(`the stream ended without "${name}": ${events.map((e) => e.event).join(', ')}`);
      }
    },
    cancel: () => reader.cancel(),
  };
}

const harness = test.extend<{ h: Awaited<ReturnType<typeof makeHarness>>; maxBufferedBytes: number; inboxTtlSeconds: number | null }>({
  maxBufferedBytes: [1024 * 1024, { option: true }],
  inboxTtlSeconds: [60, { option: true }],
  h: async ({ service, clock, maxBufferedBytes, inboxTtlSeconds }, use) => {
    const h = await makeHarness(service, clock, maxBufferedBytes, inboxTtlSeconds);
    await use(h);
    h.close();
  },
});

async function makeHarness(service: { store: Store; bus: EventBus }, clock: TestClock, maxBufferedBytes: number, inboxTtlSeconds: number | null) {
  const config = resolveConfig({ apiKeys: [KEY_A, KEY_B], inboxTtlSeconds, rateLimit: false, streamPingIntervalMs: PING_MS, streamMaxBufferedBytes: maxBufferedBytes });
  await service.store.syncDomains(config.domains);
  for (const key of config.apiKeys) {
    const user = await service.store.createUser({ email: `key-${hashSecret(key).slice(0, 12)}@users.inboxkit.test`, planId: 'premium' });
    await service.store.addApiKey(user.id, hashSecret(key), { configured: true });
  }
  const logs: string[] = [];
  const logger = {
    level: 'info',
    child: () => logger,
    info: (_o: unknown, msg?: string) => void logs.push(String(msg)),
    warn: (_o: unknown, msg?: string) => void logs.push(String(msg)),
    error: (_o: unknown, msg?: string) => void logs.push(String(msg)),
    debug: () => {},
    trace: () => {},
    fatal: () => {},
  };
  const bus = countingBus(service.bus);
  const timers = new FakeTimers(clock);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a minimal logger that records messages
  const ctx = createServerContext({ store: service.store, bus, config, now: () => clock.now, logger: logger as any });
  const app = createApp(ctx, { streamTimers: timers });
  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    app.request(`http://inboxkit.local/api/v1${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json', 'content-length': String(JSON.stringify(body).length) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { call, bus, timers, logs, ctx, close: () => ctx.faults.close() };
}

type Harness = Awaited<ReturnType<typeof makeHarness>>;

/** The two streams, opened the same way: the path, and what its closing events carry besides the reason. */
const STREAMS = [
  { name: 'the inbox stream', path: (inboxId: string) => `/inboxes/${inboxId}/stream`, scope: (inboxId: string) => ({ inboxId }) },
  { name: 'the caller-wide stream (GET /me/events)', path: () => '/me/events', scope: () => ({}) },
] as const;

async function newInbox(h: Harness, headers: Record<string, string> = {}): Promise<{ id: string; token: string; address: string }> {
  const res = await h.call('POST', '/inboxes', headers, {});
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { id: string; token: string; address: string } }).data;
}

async function open(h: Harness, path: string, headers: Record<string, string>): Promise<Reading> {
  const res = await h.call('GET', path, headers);
  expect(res.status, await (res.ok ? '' : res.text())).toBe(200);
  const reading = read(res);
  await reading.next('ready');
  return reading;
}

for (const stream of STREAMS) {
  harness.describe(stream.name, () => {
    harness('sends a ping comment each interval, and nothing between', async ({ h }) => {
      const inbox = await newInbox(h, { authorization: `Bearer ${KEY_A}` });
      const reading = await open(h, stream.path(inbox.id), { authorization: `Bearer ${KEY_A}` });
      h.timers.advance(PING_MS - 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(reading.comments).toEqual([]);
      h.timers.advance(1);
      await expect.poll(() => reading.comments).toEqual(['ping']);
      h.timers.advance(PING_MS);
      await expect.poll(() => reading.comments).toEqual(['ping', 'ping']);
      await reading.cancel();
    });

    harness('a ping checks the credential again: a key revoked where the bus cannot hear it ends the stream with access.revoked', async ({ h, service }) => {
      const inbox = await newInbox(h, { authorization: `Bearer ${KEY_B}` });
      const reading = await open(h, stream.path(inbox.id), { authorization: `Bearer ${KEY_B}` });
      expect(await service.store.revokeApiKey(hashSecret(KEY_B))).not.toBeNull();
      h.timers.advance(PING_MS);
      expect(await reading.outcome).toBe('ended');
      expect(reading.events.at(-1)).toEqual({ event: 'access.revoked', data: { ...stream.scope(inbox.id), reason: 'api_key_revoked' } });
    });

    harness('a revocation on the bus ends the stream at once, without waiting for a ping', async ({ h }) => {
      const inbox = await newInbox(h, { authorization: `Bearer ${KEY_B}` });
      const reading = await open(h, stream.path(inbox.id), { authorization: `Bearer ${KEY_B}` });
      expect((await h.call('DELETE', '/me/api-key', { authorization: `Bearer ${KEY_B}` })).status).toBe(200);
      expect(await reading.outcome).toBe('ended');
      expect(reading.events.at(-1)).toEqual({ event: 'access.revoked', data: { ...stream.scope(inbox.id), reason: 'api_key_revoked' } });
    });

    harness('opened with an inbox token, it ends with inbox.expired the moment the inbox expires, not at the next sweep', async ({ h }) => {
      const inbox = await newInbox(h);
      const reading = await open(h, stream.path(inbox.id), { 'x-inbox-token': inbox.token });
      h.timers.advance(59_999);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(reading.events.map((e) => e.event)).toEqual(['ready']);
      h.timers.advance(1);
      expect(await reading.outcome).toBe('ended');
      expect(reading.events.at(-1)).toEqual({ event: 'inbox.expired', data: { inboxId: inbox.id } });
    });

    harness('closing it unsubscribes from the bus and clears its timers', async ({ h }) => {
      const inbox = await newInbox(h);
      const before = { subscriptions: h.bus.live(), timers: h.timers.live };
      const reading = await open(h, stream.path(inbox.id), { 'x-inbox-token': inbox.token });
      // The ping, and the deadline at the inbox's expiry.
      expect({ subscriptions: h.bus.live(), timers: h.timers.live }).toEqual({ subscriptions: before.subscriptions + 1, timers: before.timers + 2 });
      await reading.cancel();
      await expect.poll(() => ({ subscriptions: h.bus.live(), timers: h.timers.live })).toEqual(before);
    });

    harness('a flood of HEAD requests answers the stream\'s headers with no body and opens nothing', async ({ h }) => {
      const inbox = await newInbox(h);
      const before = { subscriptions: h.bus.live(), timers: h.timers.live };
      for (let i = 0; i < 200; i++) {
        const res = await h.call('HEAD', stream.path(inbox.id), { 'x-inbox-token': inbox.token });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
        expect(await res.text()).toBe('');
      }
      expect({ subscriptions: h.bus.live(), timers: h.timers.live }).toEqual(before);
    });

    harness.describe('with a small queue', () => {
      // Inboxes that never expire: only the queue can end the stream here.
      harness.use({ maxBufferedBytes: 256, inboxTtlSeconds: null });

      harness('a client that does not read is dropped once its queue passes the bound, and says why in the log', async ({ h }) => {
        const inbox = await newInbox(h, { authorization: `Bearer ${KEY_A}` });
        const res = await h.call('GET', stream.path(inbox.id), { authorization: `Bearer ${KEY_A}` });
        expect(res.status).toBe(200);
        const before = h.bus.live();
        // Unread pings pile up in the queue: 9 bytes each.
        for (let i = 0; i < 40 && !h.logs.some((l) => l.includes('client too slow')); i++) {
          h.timers.advance(PING_MS);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        expect(h.logs.filter((l) => l.includes('client too slow'))).toHaveLength(1);
        expect(h.bus.live()).toBe(before - 1);
        await expect(res.body!.getReader().read()).rejects.toThrow(/client too slow/);
      });
    });
  });
}
