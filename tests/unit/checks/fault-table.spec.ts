/**
 * The per-inbox fault table: counting attempts, the enhanced status codes it
 * chooses, and clearing with the inbox.
 */
import { test, expect } from '@playwright/test';
import { createEventBus } from '../../../src/server/events/bus.ts';
import { createDeliveryFaults } from '../../../src/server/faults/table.ts';
import { defaultEnhancedStatus } from '../../../src/server/faults/replies.ts';

test('a fault with a count is used up attempt by attempt, then gone', () => {
  const faults = createDeliveryFaults({ bus: createEventBus(), now: () => 0 });
  faults.set('a', { code: 451, count: 2 });
  expect(faults.take('a')?.refusal?.code).toBe(451);
  expect(faults.get('a')?.remaining).toBe(1);
  expect(faults.take('a')?.refusal?.text).toMatch(/^4\.3\.0 /);
  expect(faults.take('a')).toBeNull();
  expect(faults.get('a')).toBeNull();
});

test('a fault affects only its own inbox', () => {
  const faults = createDeliveryFaults({ bus: createEventBus(), now: () => 0 });
  faults.set('a', { code: 550 });
  expect(faults.take('b')).toBeNull();
  expect(faults.take('a')?.refusal?.code).toBe(550);
  expect(faults.take('a')?.refusal?.code).toBe(550);
});

test('deleting or expiring the inbox clears its fault', () => {
  const bus = createEventBus();
  const faults = createDeliveryFaults({ bus, now: () => 0 });
  faults.set('a', { code: 550 });
  faults.set('b', { code: 451 });
  bus.publish({ type: 'inbox.deleted', inboxId: 'a' });
  bus.publish({ type: 'inbox.expired', inboxId: 'b' });
  expect(faults.get('a')).toBeNull();
  expect(faults.get('b')).toBeNull();
});

test('each common reply code gets the enhanced status code its meaning calls for', () => {
  expect(Object.fromEntries([421, 450, 451, 452, 499, 550, 551, 552, 553, 554, 599].map((c) => [c, defaultEnhancedStatus(c)]))).toEqual({
    421: '4.3.2',
    450: '4.2.0',
    451: '4.3.0',
    452: '4.3.1',
    499: '4.0.0',
    550: '5.7.1',
    551: '5.1.6',
    552: '5.2.2',
    553: '5.1.3',
    554: '5.7.1',
    599: '5.0.0',
  });
});

test('closing the table ends a delay in progress', async () => {
  const faults = createDeliveryFaults({ bus: createEventBus(), now: () => 0 });
  const delayed = faults.delay(600_000);
  faults.close();
  await expect(delayed).resolves.toBeUndefined();
});
