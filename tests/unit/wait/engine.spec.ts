/**
 * How a wait behaves, row by row, on fake time and without a socket: the real
 * wait engine (`runWait`: feed, matcher, explanation) over the real
 * `InboxStream`, whose connections are scripted (what each sends, and when)
 * and whose message list is a table of mail by arrival time. The clock is
 * injected (`WaitSource.clock`): a row that spans seconds of fake time runs
 * in milliseconds.
 */
import { PassThrough } from 'node:stream';
import { test, expect } from '@playwright/test';
import { createApiError } from '../../../src/client/core/errors.ts';
import type { Clock } from '../../../src/client/internal/clock.ts';
import { Transport } from '../../../src/client/internal/transport.ts';
import type { StreamingAnswer } from '../../../src/client/internal/transport.ts';
import type { PagePromise } from '../../../src/client/core/pagination.ts';
import { ReceivedMessage } from '../../../src/client/message/received.ts';
import type { MessageOwner } from '../../../src/client/message/received.ts';
import { InboxStream } from '../../../src/client/stream/stream.ts';
import type { RateLimit } from '../../../src/client/core/types.ts';
import { runWait, WaitState, WaitTimeoutError, waitSpec } from '../../../src/client/wait/index.ts';
import type { WaitSource } from '../../../src/client/wait/index.ts';
import type { MessageSummary } from '../../../src/wire/schemas.ts';
import { summary } from '../client/fake-server.ts';

/** A clock whose time moves only when the row's driver moves it. */
class FakeClock implements Clock {
  #now = 0;
  #next = 1;
  readonly #timers = new Map<number, { callback: () => void; due: number }>();
  now(): number {
    return this.#now;
  }
  setTimeout(callback: () => void, ms: number): number {
    const id = this.#next++;
    this.#timers.set(id, { callback, due: this.#now + Math.max(0, ms) });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  /** Runs fake time until `done()` or `until`, firing timers in order and letting promises settle between them. */
  async run(until: number, done: () => boolean): Promise<void> {
    for (;;) {
      await settle();
      if (done()) return;
      const [id, timer] = [...this.#timers].sort((a, b) => a[1].due - b[1].due || a[0] - b[0])[0] ?? [];
      if (id === undefined || timer === undefined || timer.due > until) {
        this.#now = until;
        await settle();
        return;
      }
      this.#timers.delete(id);
      this.#now = Math.max(this.#now, timer.due);
      timer.callback();
    }
  }
}

/** Lets every promise and stream callback that is ready run (no timer of the engine is involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 12; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** One step of a scripted connection, at `ms` after it opened. */
type Step =
  | [ms: number, event: 'ready', lastSeq: number]
  | [ms: number, event: 'message', seq: number]
  | [ms: number, event: 'inbox.deleted' | 'end']
  | [ms: number, event: 'access.revoked', reason: string];

/** What one connection to the stream answers: an error status, or a scripted body. */
type Connection = { status: number; retryAfter?: number } | Step[];

interface Row {
  name: string;
  /** `waitForMessages(count)` with these options. */
  wait: { count?: number; since?: 'now' | 'backlog'; timeout: number; pollIntervals?: number[] };
  /** Each connection the stream opens, in order; after the last, the stream answers 404. */
  connections: Connection[];
  /** The message list: each message's seq and the fake time from which it is listed. */
  mail: Array<[seq: number, at: number]>;
  /** The list call with this 0-based index answers 429 with this Retry-After (seconds). */
  rateLimited?: Record<number, number>;
  /** `X-RateLimit-Remaining` of every list answer. */
  remaining?: number;
  expect: {
    /** The seqs the wait resolves with, or the error it rejects with. */
    seqs?: number[];
    error?: RegExp;
    /** What each connection sent as Last-Event-ID (absent: none). */
    lastEventIds?: Array<string | undefined>;
    /** How many times the list was read: exactly, or [min, max]. */
    polls?: number | [number, number];
    /** Fake ms the wait took, at most. */
    within?: number;
    /** The fake times of the list calls, when they matter. */
    pollTimes?: number[];
  };
}

const rows: Row[] = [
  {
    name: 'a message pushed live resolves the wait without a poll',
    wait: { timeout: 5000 },
    connections: [[[0, 'ready', 0], [100, 'message', 1]]],
    mail: [[1, 100]],
    expect: { seqs: [1], polls: 0, within: 100, lastEventIds: ['0'] },
  },
  {
    name: 'a dropped connection reconnects after its last seq and the replay fills the gap',
    wait: { count: 3, timeout: 5000 },
    connections: [
      [[0, 'ready', 0], [10, 'message', 1], [20, 'end']],
      [[0, 'message', 2], [0, 'message', 3], [0, 'ready', 3]],
    ],
    mail: [[1, 10], [2, 30], [3, 40]],
    expect: { seqs: [1, 2, 3], polls: 0, lastEventIds: ['0', '1'] },
  },
  {
    name: 'a replay that repeats what was delivered delivers it once',
    wait: { count: 2, timeout: 5000 },
    connections: [
      [[0, 'ready', 0], [10, 'message', 1], [20, 'end']],
      [[0, 'message', 1], [0, 'message', 2], [0, 'ready', 2]],
    ],
    mail: [[1, 10], [2, 15]],
    expect: { seqs: [1, 2], polls: 0, lastEventIds: ['0', '1'] },
  },
  {
    name: 'a duplicate and an older seq on the live stream are dropped, the next new one is delivered',
    wait: { count: 2, timeout: 5000 },
    connections: [[[0, 'ready', 0], [10, 'message', 2], [20, 'message', 2], [30, 'message', 1], [40, 'message', 3]]],
    mail: [[1, 5], [2, 10], [3, 40]],
    expect: { seqs: [2, 3], polls: 0 },
  },
  {
    name: 'the backlog after the handle\'s boundary is replayed first, oldest first',
    wait: { count: 2, since: 'backlog', timeout: 5000 },
    connections: [[[0, 'message', 1], [0, 'message', 2], [0, 'ready', 2]]],
    mail: [[1, 0], [2, 0]],
    expect: { seqs: [1, 2], lastEventIds: ['0'] },
  },
  {
    name: 'with since: now, mail already in the inbox is ignored',
    wait: { since: 'now', timeout: 5000 },
    connections: [[[0, 'ready', 2], [50, 'message', 3]]],
    mail: [[1, 0], [2, 0], [3, 50]],
    expect: { seqs: [3], lastEventIds: [undefined] },
  },
  {
    name: 'a stream that never sends ready falls back to polling within the ready timeout',
    wait: { timeout: 6000, pollIntervals: [100] },
    connections: [[]],
    mail: [[1, 700]],
    // The ready timeout of a 6 s wait is 2 s; then a poll every 100 ms finds the message at 700 ms… once polling starts.
    expect: { seqs: [1], within: 2100, polls: [1, 2] },
  },
  {
    name: 'a stream refused with 404 falls back to polling at once, on the poll schedule',
    wait: { timeout: 5000, pollIntervals: [100, 250, 500] },
    connections: [{ status: 404 }],
    mail: [[1, 800]],
    expect: { seqs: [1], pollTimes: [0, 100, 350, 850], within: 850 },
  },
  {
    name: 'polling goes back to the stream once it is live again, and stops polling',
    wait: { count: 2, timeout: 20_000, pollIntervals: [1000] },
    connections: [{ status: 503 }, [[0, 'ready', 1], [500, 'message', 2]]],
    mail: [[1, 1500], [2, 5500]],
    // Polls at 0…4000 find message 1; the stream is tried again at 5000 and goes live, so message 2 comes pushed.
    expect: { seqs: [1, 2], polls: [5, 6], lastEventIds: ['0', '1'] },
  },
  {
    name: 'a stream that keeps dropping is given up after three drops, and polling takes over',
    wait: { timeout: 10_000, pollIntervals: [200] },
    connections: [
      [[0, 'ready', 0], [10, 'end']],
      [[0, 'ready', 0], [10, 'end']],
      [[0, 'ready', 0], [10, 'end']],
      [[0, 'ready', 0], [10, 'end']],
    ],
    mail: [[1, 3000]],
    expect: { seqs: [1], polls: [1, 30] },
  },
  {
    name: 'a 429 while polling is honoured: nothing is asked again before Retry-After',
    wait: { timeout: 10_000, pollIntervals: [100] },
    connections: [{ status: 404 }],
    mail: [[1, 0]],
    rateLimited: { 0: 3 },
    expect: { seqs: [1], pollTimes: [0, 3000] },
  },
  {
    name: 'polling slows down as X-RateLimit-Remaining runs low',
    wait: { timeout: 2500, pollIntervals: [100] },
    connections: [{ status: 404 }],
    mail: [],
    remaining: 2,
    // 2 calls left in a 60 s window: one every 30 s, instead of 25 polls in 2.5 s.
    expect: { error: /timed out after 2500 ms.*polled 1 time\./s, polls: 1 },
  },
  {
    name: 'access revoked on the stream ends the wait at once, saying why, without polling',
    wait: { timeout: 10_000 },
    connections: [[[0, 'ready', 0], [300, 'access.revoked', 'session_signed_out']]],
    mail: [],
    expect: { error: /access to inbox box@inboxkit\.test was revoked while waiting \(session_signed_out\)/, polls: 0, within: 300 },
  },
  {
    name: 'a deleted inbox ends the wait at once, without reconnecting',
    wait: { timeout: 10_000 },
    connections: [[[0, 'ready', 0], [200, 'inbox.deleted']]],
    mail: [],
    expect: { error: /inbox box@inboxkit\.test was deleted while waiting/, polls: 0, within: 200, lastEventIds: ['0'] },
  },
  {
    name: 'a timeout says what arrived and how the stream fared',
    wait: { timeout: 1000 },
    connections: [[[0, 'ready', 0]]],
    mail: [],
    expect: { error: /^waitForMessages timed out after 1000 ms waiting for a message matching any message at box@inboxkit\.test\.\nNo message arrived/, polls: 0 },
  },
];

const rateLimit = (remaining: number | null): RateLimit => ({ limit: remaining === null ? null : 60, remaining, reset: remaining === null ? null : 60 });

/** A scripted inbox: its stream's connections and its message list, on the fake clock. */
function scriptedSource(row: Row, clock: FakeClock) {
  const lastEventIds: Array<string | undefined> = [];
  const pollTimes: number[] = [];
  const info = (status: number, remaining: number | null = null) => ({ status, headers: { 'content-type': 'text/event-stream' }, rateLimit: rateLimit(remaining), requestId: null, retries: 0 });
  const transport = {
    validate: Transport.prototype.validate,
    async streaming(_spec: unknown, options: { signal?: AbortSignal; headers?: Record<string, string> }): Promise<StreamingAnswer> {
      const script = row.connections[lastEventIds.length] ?? { status: 404 };
      lastEventIds.push(options.headers?.['last-event-id']);
      const url = 'http://inboxkit.test/api/v1/inboxes/i1/stream';
      if (!Array.isArray(script)) {
        const headers: Record<string, string> = script.retryAfter === undefined ? {} : { 'retry-after': String(script.retryAfter) };
        throw createApiError({ status: script.status, code: 'scripted', serverMessage: `scripted ${script.status}`, requestId: null, rateLimit: rateLimit(null), headers, method: 'GET', url, retries: 0 }, script.retryAfter ?? null);
      }
      const body = new PassThrough();
      const steps = script.map(([ms, event, value]) =>
        clock.setTimeout(() => {
          if (body.destroyed) return;
          if (event === 'end') return void body.end();
          if (event === 'ready') return void body.write(`event: ready\ndata: ${JSON.stringify({ inboxId: 'i1', lastSeq: value })}\n\n`);
          if (event === 'message') return void body.write(`event: message\nid: ${value}\ndata: ${JSON.stringify(summary(value as number))}\n\n`);
          if (event === 'access.revoked') return void body.write(`event: access.revoked\ndata: ${JSON.stringify({ inboxId: 'i1', reason: value })}\n\n`);
          body.write(`event: ${event}\ndata: ${JSON.stringify({ inboxId: 'i1' })}\n\n`);
        }, ms),
      );
      body.write('retry: 2000\n\n');
      options.signal?.addEventListener('abort', () => {
        for (const step of steps) clock.clearTimeout(step);
        body.destroy();
      });
      return { status: 200, url, method: 'GET', body, info: info(200) };
    },
  };
  const listed = (): MessageSummary[] =>
    row.mail
      .filter(([, at]) => at <= clock.now())
      .map(([seq]) => summary(seq) as MessageSummary)
      .sort((a, b) => b.seq - a.seq);
  const messages = () => {
    const index = pollTimes.length;
    pollTimes.push(clock.now());
    const retryAfter = row.rateLimited?.[index];
    if (retryAfter !== undefined) {
      const url = 'http://inboxkit.test/api/v1/inboxes/i1/messages';
      return Promise.reject(createApiError({ status: 429, code: 'rate_limited', serverMessage: 'Slow down.', requestId: null, rateLimit: rateLimit(0), headers: {}, method: 'GET', url, retries: 0 }, retryAfter));
    }
    return Promise.resolve({ items: listed(), rateLimit: rateLimit(row.remaining ?? null), nextPage: async () => null });
  };
  const owner = {} as MessageOwner;
  const source: WaitSource = {
    address: 'box@inboxkit.test',
    clock,
    stream: (options) => new InboxStream(transport, 'i1', options, clock),
    messages: messages as unknown as WaitSource['messages'] & (() => PagePromise<MessageSummary>),
    message: async (id) => {
      const seq = Number(id.slice(1));
      return { ...summary(seq), replyTo: [], headers: {}, text: `Body ${seq}`, html: null, attachments: [] } as never;
    },
    wrap: (message) => new ReceivedMessage(owner, message),
  };
  return { source, lastEventIds, pollTimes };
}

test.describe('the wait engine, on fake time', () => {
  for (const row of rows) {
    test(row.name, async () => {
      const clock = new FakeClock();
      const { source, lastEventIds, pollTimes } = scriptedSource(row, clock);
      const spec = waitSpec('waitForMessages', row.wait.count ?? 1, undefined, {
        timeout: row.wait.timeout,
        ...(row.wait.since ? { since: row.wait.since } : {}),
        ...(row.wait.pollIntervals ? { pollIntervals: row.wait.pollIntervals } : {}),
      });
      const state = new WaitState();
      let outcome: { seqs: number[] } | { error: unknown } | null = null;
      runWait(source, state, spec).then(
        (messages) => (outcome = { seqs: messages.map((m) => m.seq) }),
        (error: unknown) => (outcome = { error }),
      );
      await clock.run(row.wait.timeout + 1000, () => outcome !== null);
      expect(outcome, 'the wait settled within its timeout').not.toBeNull();
      const settled = outcome as unknown as { seqs?: number[]; error?: unknown };
      if (row.expect.seqs) expect(settled.error ?? null).toBeNull();
      if (row.expect.seqs) expect(settled.seqs).toEqual(row.expect.seqs);
      if (row.expect.error) {
        expect(settled.error).toBeInstanceOf(Error);
        expect((settled.error as Error).message).toMatch(row.expect.error);
        if (/timed out/.test(String(row.expect.error))) expect(settled.error).toBeInstanceOf(WaitTimeoutError);
      }
      if (row.expect.lastEventIds) expect(lastEventIds).toEqual(row.expect.lastEventIds);
      if (typeof row.expect.polls === 'number') expect(pollTimes).toHaveLength(row.expect.polls);
      else if (row.expect.polls) {
        expect(pollTimes.length).toBeGreaterThanOrEqual(row.expect.polls[0]);
        expect(pollTimes.length).toBeLessThanOrEqual(row.expect.polls[1]);
      }
      if (row.expect.pollTimes) expect(pollTimes).toEqual(row.expect.pollTimes);
      if (row.expect.within !== undefined) expect(clock.now()).toBeLessThanOrEqual(row.expect.within);
    });
  }
});
