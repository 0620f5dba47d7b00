/**
 * The one SSE connection of both streams (src/server/streams/connection.ts),
 * on its own: a scripted policy, access check and bus, injected timers, and
 * the body read in-process.
 */
import { test, expect } from '@playwright/test';
import { SseConnection } from '../../../src/server/streams/connection.ts';
import type { ConnectionAccess, ConnectionTimers, StreamPolicy } from '../../../src/server/streams/connection.ts';
import type { AccessEnd } from '../../../src/server/auth/access.ts';
import type { BusEvent } from '../../../src/server/index.ts';

const silent = { info() {}, warn() {}, error() {}, debug() {}, child: () => silent } as never;

function timers(): ConnectionTimers & { live: Set<unknown> } {
  const live = new Set<unknown>();
  let next = 0;
  return {
    live,
    setInterval: () => (live.add(++next), next),
    setTimeout: () => (live.add(++next), next),
    clearInterval: (h) => void live.delete(h),
    clearTimeout: (h) => void live.delete(h),
  };
}

function access(check: () => Promise<AccessEnd | null>, deadline: number | null = null): ConnectionAccess {
  return { deadline, inboxId: 'i1', check, concerns: () => true, now: () => 0 };
}

/** A policy that writes each message event's seq as an event. */
const echo: StreamPolicy = {
  async start(connection) {
    connection.write('event: ready\ndata: {}\n\n');
  },
  handle(event, connection) {
    if (event.type === 'message') connection.write(`event: message\ndata: ${event.message.seq}\n\n`);
  },
  endData: (end) => ({ ended: end.event }),
};

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return text;
}

const message = (seq: number) => ({ type: 'message', inboxId: 'i1', message: { seq } }) as unknown as BusEvent;

test('cleanup runs once however the connection ends: one unsubscribe, one onClose, no timer left', async () => {
  const clock = timers();
  let unsubscribed = 0;
  let closed = 0;
  const connection = new SseConnection({ label: 'test', logger: silent, pingIntervalMs: 1000, maxBufferedBytes: 1 << 20, access: access(async () => null, 5000), timers: clock, onClose: () => closed++ });
  connection.open(() => () => unsubscribed++, echo);
  expect(clock.live.size).toBe(2); // the ping and the deadline
  connection.end({ event: 'inbox.deleted' });
  connection.end({ event: 'inbox.expired' });
  connection.drop('again');
  await connection.body.cancel().catch(() => {});
  expect({ unsubscribed, closed, timers: clock.live.size }).toEqual({ unsubscribed: 1, closed: 1, timers: 0 });
});

test('events that arrive while access is being checked wait for the answer: none is sent once it says access ended', async () => {
  let listener: (event: BusEvent) => void = () => {};
  let answer: (end: AccessEnd | null) => void = () => {};
  let checks = 0;
  const connection = new SseConnection({
    label: 'test',
    logger: silent,
    pingIntervalMs: 1000,
    maxBufferedBytes: 1 << 20,
    timers: timers(),
    access: access(() => (++checks === 1 ? Promise.resolve(null) : new Promise((resolve) => (answer = resolve)))),
  });
  connection.open((l) => ((listener = l), () => {}), echo);
  const text = readAll(connection.body);
  await expect.poll(() => checks).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 10));
  listener(message(1));
  listener({ type: 'access.revoked', inboxId: 'i1', userId: 'u1', reason: 'api_key_revoked' });
  listener(message(2));
  await expect.poll(() => checks).toBe(2);
  answer({ event: 'access.revoked', reason: 'api_key_revoked' });
  const sent = await text;
  expect(sent).toContain('data: 1');
  expect(sent).not.toContain('data: 2');
  expect(sent.trim().split('\n\n').at(-1)).toBe('event: access.revoked\ndata: {"ended":"access.revoked"}');
});

test('a task that fails drops the connection, saying why, and the client sees the stream break', async () => {
  const logged: string[] = [];
  const logger = { info: (_o: unknown, m: string) => logged.push(m), warn() {}, error: (_o: unknown, m: string) => logged.push(m), child: () => logger } as never;
  const failing: StreamPolicy = { ...echo, start: async () => Promise.reject(new Error('store down')) };
  const connection = new SseConnection({ label: 'test', logger, pingIntervalMs: 1000, maxBufferedBytes: 1 << 20, timers: timers(), access: access(async () => null) });
  connection.open(() => () => {}, failing);
  await expect(readAll(connection.body)).rejects.toThrow(/delivery failed/);
  expect(logged).toEqual(['test: delivery failed', 'test: delivery failed, disconnecting (the client reconnects)']);
});
