/**
 * The fair queue in front of the spam scanner, with tasks the test ends by
 * hand: never more in flight than the scanner serves, the next task sent is
 * the waiting caller's with the fewest in flight (round robin among equals), so
 * a newcomer waits for one task to end, not for another caller's whole line.
 */
import { test, expect } from '@playwright/test';
import { createFairQueue } from '../../../src/server/spam/fair-queue.ts';

/** A queue whose tasks record when they start and end when the test says. */
function harness(maxInFlight: number, maxQueued = 100) {
  const queue = createFairQueue({ maxInFlight, maxQueued, onFull: () => new Error('full') });
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const submit = (caller: string, name: string) =>
    queue.run(caller, () => {
      started.push(name);
      return new Promise<string>((resolve) => finishers.set(name, () => resolve(name)));
    });
  const finish = async (name: string) => {
    const end = finishers.get(name);
    if (!end) throw new Error(`${name} has not started`);
    end();
    // Let the settlement and the next dispatch run.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, started, submit, finish };
}

test('never more tasks in flight than the bound, whatever one caller queues', async () => {
  const h = harness(5);
  const results = Array.from({ length: 8 }, (_, i) => h.submit('guest', `g${i}`));
  expect(h.started).toEqual(['g0', 'g1', 'g2', 'g3', 'g4']);
  expect({ inFlight: h.queue.inFlight(), waiting: h.queue.waiting() }).toEqual({ inFlight: 5, waiting: 3 });
  await h.finish('g0');
  expect(h.started).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5']);
  expect(await results[0]).toBe('g0');
});

test('a caller with nothing in flight gets the next free slot, ahead of the line of the caller filling the scanner', async () => {
  const h = harness(5);
  for (let i = 0; i < 8; i++) void h.submit('guest', `g${i}`);
  const other = h.submit('user', 'u0');
  expect(h.started).not.toContain('u0');
  await h.finish('g2');
  expect(h.started.at(-1)).toBe('u0');
  await h.finish('g0');
  expect(h.started.at(-1)).toBe('g5');
  await h.finish('u0');
  expect(await other).toBe('u0');
});

test('callers with as many in flight take turns round robin, each in its own order', async () => {
  const h = harness(1);
  void h.submit('a', 'a0');
  for (const name of ['a1', 'a2', 'a3']) void h.submit('a', name);
  for (const name of ['b1', 'b2']) void h.submit('b', name);
  void h.submit('c', 'c1');
  for (const name of ['a0', 'b1', 'c1', 'a1', 'b2', 'a2']) await h.finish(name);
  expect(h.started).toEqual(['a0', 'b1', 'c1', 'a1', 'b2', 'a2', 'a3']);
});

test('past the bound on tasks held (in flight and waiting) a task is refused at once; a failing task frees its slot', async () => {
  const queue = createFairQueue({ maxInFlight: 1, maxQueued: 2, onFull: () => new Error('2 held, the bound') });
  let fail: (error: Error) => void = () => {};
  const first = queue.run('a', () => new Promise((_, reject) => (fail = reject)));
  const second = queue.run('b', () => Promise.resolve('b'));
  await expect(queue.run('c', () => Promise.resolve('c'))).rejects.toThrow('2 held, the bound');
  fail(new Error('scanner down'));
  await expect(first).rejects.toThrow('scanner down');
  expect(await second).toBe('b');
  expect(await queue.run('c', () => Promise.resolve('c'))).toBe('c');
});
