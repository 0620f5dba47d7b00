import { test, expect } from '@playwright/test';
import { createEventBus } from '../../../src/server/events/bus.ts';
import type { BusEvent } from '../../../src/server/events/types.ts';

const gone = (inboxId: string): BusEvent => ({ type: 'inbox.deleted', inboxId });

test('an event reaches the subscribers of its inbox only', () => {
  const bus = createEventBus();
  const a: BusEvent[] = [];
  const b: BusEvent[] = [];
  bus.subscribe('a', (e) => a.push(e));
  bus.subscribe('b', (e) => b.push(e));
  bus.publish(gone('a'));
  expect(a).toEqual([gone('a')]);
  expect(b).toEqual([]);
});

test('a throwing listener neither reaches the publisher nor stops the other listeners', () => {
  const errors: unknown[] = [];
  const bus = createEventBus({ onListenerError: (error) => errors.push(error) });
  const seen: string[] = [];
  bus.subscribe('a', () => {
    throw new Error('boom');
  });
  bus.subscribe('a', () => seen.push('second'));
  expect(() => bus.publish(gone('a'))).not.toThrow();
  expect(seen).toEqual(['second']);
  expect(errors).toHaveLength(1);
});

test('unsubscribing stops delivery, is idempotent, and may happen during delivery', () => {
  const bus = createEventBus();
  const seen: string[] = [];
  let offSecond: () => void = () => {};
  const offFirst = bus.subscribe('a', () => {
    seen.push('first');
    offSecond();
  });
  offSecond = bus.subscribe('a', () => seen.push('second'));
  bus.publish(gone('a'));
  // Delivery works on a snapshot: the second listener still got this event.
  expect(seen).toEqual(['first', 'second']);
  bus.publish(gone('a'));
  expect(seen).toEqual(['first', 'second', 'first']);
  offFirst();
  offFirst();
  bus.publish(gone('a'));
  expect(seen).toEqual(['first', 'second', 'first']);
});

test('two buses are independent (no global state)', () => {
  const one = createEventBus();
  const two = createEventBus();
  const seen: BusEvent[] = [];
  one.subscribe('a', (e) => seen.push(e));
  two.publish(gone('a'));
  expect(seen).toEqual([]);
});
